// A user's project built twice with nvcc (before and after an edit of a __device__ helper that nvcc inlines
// into a kernel in an anonymous namespace, as `bisect` meets it), read as the source-line pass reads it:
// the kernel is the same kernel in both builds (core/function_key.hpp), the helper's instructions name the
// helper's line and the kernel's line that calls it (profiler/cubin/line_table.hpp), and the lines that
// changed put the edited helper line first and never list one line as both new and gone
// (reports/analysis/line_changes.hpp). Counters: one warp instruction per SASS instruction of the cubin, as
// if each ran once, so a line's count is its instruction count. Skips only where nvcc is absent.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/function_key.hpp"
#include "profiler/cubin/line_table.hpp"
#include "profiler/source_line_aggregate.hpp"
#include "reports/analysis/line_changes.hpp"
#include "reports/line_text.hpp"

namespace gpuperf {
namespace {

namespace fs = std::filesystem;

// The project's kernel file; `edited` applies the commit: a comment above (every line moves down one) and
// the helper's fused multiply-add split in two (its line runs twice the instructions).
std::string poly_cu(bool edited) {
  std::string s = edited ? "// poly: a Horner polynomial per element\n" : "";
  s += "#include <cuda_runtime.h>\n"
       "namespace {\n"
       "__device__ __forceinline__ float horner(float acc, float x, float c) {\n";
  s += edited ? "  return __fadd_rn(__fmul_rn(acc, x), c);\n" : "  return fmaf(acc, x, c);\n";
  s += "}\n"
       "__global__ void poly_kernel(const float* x, float* y, int n) {\n"
       "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
       "  if (i >= n) return;\n"
       "  const float v = x[i];\n"
       "  float acc = 1.0f;\n"
       "  for (int k = 0; k < 16; ++k) acc = horner(acc, v, 0.5f + k);\n"
       "  y[i] = acc;\n"
       "}\n"
       // A template kernel instantiated twice: two kernels of one source, told apart by their arguments.
       "template <int N>\n"
       "__global__ void poly_tmpl(const float* x, float* y, int n) {\n"
       "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
       "  if (i >= n) return;\n"
       "  float acc = x[i];\n"
       "  for (int k = 0; k < N; ++k) acc = horner(acc, acc, 0.25f * k);\n"
       "  y[i] = acc;\n"
       "}\n"
       "}  // namespace\n"
       "void launch(const float* x, float* y, int n) { poly_kernel<<<(n + 255) / 256, 256>>>(x, y, n); }\n"
       "void launch_tmpl(const float* x, float* y, int n) {\n"
       "  poly_tmpl<4><<<(n + 255) / 256, 256>>>(x, y, n);\n"
       "  poly_tmpl<8><<<(n + 255) / 256, 256>>>(x, y, n);\n"
       "}\n";
  return s;
}

std::string nvcc() {
  for (const char* env : {"GPUPERF_NVCC", "CUDACXX"}) {
    if (const char* p = std::getenv(env); p != nullptr && fs::exists(p)) return p;
  }
  if (fs::exists(GPUPERF_CMAKE_NVCC)) return GPUPERF_CMAKE_NVCC;
  if (fs::exists("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  return "";
}

struct Kernel {
  std::string name;                // the kernel's mangled name in this build
  std::vector<SourceLine> source;  // its source lines, as the pass aggregates them
};

struct Build {
  cubin::ElfFile elf;
  cubin::LineTable lines;
  std::vector<Kernel> kernels;  // every kernel of poly.cu
  // The kernel whose mangled name holds `part` ("poly_kernel", "poly_tmplILi4E").
  const Kernel& of(const std::string& part) const {
    for (const Kernel& k : kernels) {
      if (k.name.find(part) != std::string::npos) return k;
    }
    throw std::runtime_error("no kernel " + part);
  }
};

// Builds `dir`/poly.cu (the checkout, at the project's root) into a cubin and reads it.
Build build(const std::string& compiler, const fs::path& dir, bool edited, bool with_text) {
  fs::create_directories(dir);
  std::ofstream(dir / "poly.cu") << poly_cu(edited);
  const fs::path out = dir / "poly.cubin";
  const std::string cmd = "'" + compiler + "' -cubin -arch=sm_90 -lineinfo -o '" + out.string() + "' '" +
                          (dir / "poly.cu").string() + "' 2>&1";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("nvcc failed: " + cmd);
  cubin::ElfFile elf = cubin::ElfFile::read(out.string());
  cubin::LineTable lines = cubin::LineTable::read(elf);
  const LocateFn locate = [&lines](std::uint32_t, const std::string& f, std::uint32_t pc) {
    cupti::SassLocation at;
    at.kind = cupti::SassLocation::Kind::no_line_info;
    if (auto l = lines.locate(f, pc)) {
      at.kind = cupti::SassLocation::Kind::line;
      at.file = l->file;
      at.line = l->line;
      at.inlined_at_file = l->inlined_at_file;
      at.inlined_at_line = l->inlined_at_line;
    }
    return at;
  };
  // Paths relative to the checkout (its root), as on another machine: by name, not by the file's presence.
  const std::string root = dir.string() + "/";
  SourceTextCache texts(
      [with_text](const std::string& p) {
        std::vector<std::string> text;
        std::ifstream in(p);
        for (std::string l; with_text && std::getline(in, l);) text.push_back(l);
        return text;
      },
      [root](const std::string& p) { return p.rfind(root, 0) == 0 ? p.substr(root.size()) : p; });
  std::vector<Kernel> kernels;
  for (const cubin::ElfSymbol& s : elf.symbols()) {
    if (s.type != cubin::kElfSymbolFunction || s.name.find("poly_") == std::string::npos) continue;
    std::vector<cupti::SassValue> values;
    for (std::uint32_t pc = 0; pc < s.size; pc += 16) values.push_back({0, s.name, pc, 0, 1});
    kernels.push_back({s.name, aggregate_source_lines(values, {SassCounter::inst_executed}, 1, locate, texts).lines});
  }
  return {std::move(elf), std::move(lines), std::move(kernels)};
}

class UserProject : public testing::Test {
 protected:
  void SetUp() override {
    compiler_ = nvcc();
    if (compiler_.empty()) GTEST_SKIP() << "no nvcc (GPUPERF_NVCC, CUDACXX, /usr/local/cuda/bin/nvcc)";
    root_ = fs::temp_directory_path() / ("gpuperf-user-project-" + std::to_string(::getpid()));
  }
  void TearDown() override {
    std::error_code ec;
    if (!root_.empty()) fs::remove_all(root_, ec);
  }
  std::string compiler_;
  fs::path root_;
};

const SourceLine* find(const std::vector<SourceLine>& lines, std::int64_t line, std::int64_t site) {
  for (const SourceLine& l : lines)
    if (l.line == line && l.inlined_at_line == site) return &l;
  return nullptr;
}

TEST_F(UserProject, TheKernelMatchesAcrossBuildsAndTheEditedHelperLineComesFirst) {
  // Two checkouts at different paths, as two bisect steps or two machines build them.
  const Build a = build(compiler_, root_ / "a", false, true);
  const Build b = build(compiler_, root_ / "b" / "checkout", true, true);
  const Kernel &before = a.of("poly_kernel"), &after = b.of("poly_kernel");

  // 1. nvcc's anonymous-namespace name changes with the file's content and path; the key does not.
  ASSERT_NE(before.name.find("_GLOBAL__N__"), std::string::npos) << before.name;
  EXPECT_NE(before.name, after.name);
  EXPECT_EQ(function_key(before.name), function_key(after.name));
  EXPECT_EQ(function_key(after.name), "[poly_cu]::poly_kernel(float const*, float*, int)");

  // 2. The helper's line (4, then 5) inlined at the loop (11, then 12), named relative to the checkout.
  const SourceLine* fma = find(before.source, 4, 11);
  const SourceLine* split = find(after.source, 5, 12);
  ASSERT_NE(fma, nullptr);
  ASSERT_NE(split, nullptr);
  EXPECT_EQ(fma->file, "poly.cu");
  EXPECT_EQ(fma->inlined_at_file, "poly.cu");
  EXPECT_EQ(fma->text, "return fmaf(acc, x, c);");
  EXPECT_EQ(split->text, "return __fadd_rn(__fmul_rn(acc, x), c);");
  EXPECT_GT(split->inst_executed, fma->inst_executed);  // one FFMA became an FMUL and an FADD
  EXPECT_EQ(find(before.source, 4, 0), nullptr);        // no helper instruction is left to the kernel's own lines

  // 3. The changes: the edited helper line first, at its call site; no line both new and gone.
  const std::vector<analysis::LineChange> changes = analysis::changed_lines(before.source, after.source);
  ASSERT_FALSE(changes.empty());
  const analysis::LineChange& first = changes.front();
  EXPECT_EQ(first.line.line, 5);
  EXPECT_EQ(first.line.inlined_at_line, 12);
  EXPECT_TRUE(first.edited);
  EXPECT_FALSE(first.is_new || first.is_gone);
  EXPECT_EQ(reports::line_place(first.line), "poly.cu:5 (inlined at :12)");
  for (const analysis::LineChange& c : changes) {
    std::printf("%s\n", reports::line_change_text(c).c_str());
    if (!c.is_new) continue;
    for (const analysis::LineChange& g : changes) {
      EXPECT_FALSE(g.is_gone && g.line.text == c.line.text) << "listed as new and as gone: " << c.line.text;
    }
  }
}

TEST_F(UserProject, WithoutTextTheSameLineIsNeverNewAndGone) {
  // The same builds where no source is readable (a copied binary): lines pair by function, number, counters.
  const Build a = build(compiler_, root_ / "a", false, false);
  const Build b = build(compiler_, root_ / "b", true, false);
  const Kernel &before = a.of("poly_kernel"), &after = b.of("poly_kernel");
  const std::vector<analysis::LineChange> changes = analysis::changed_lines(before.source, after.source);
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes.front().line.inlined_at_line, 12) << reports::line_change_text(changes.front());
  int new_lines = 0, gone_lines = 0;
  for (const analysis::LineChange& c : changes) {
    std::printf("%s\n", reports::line_change_text(c).c_str());
    new_lines += c.is_new ? 1 : 0;
    gone_lines += c.is_gone ? 1 : 0;
    for (const analysis::LineChange& g : changes) {
      if (!c.is_new || !g.is_gone) continue;
      EXPECT_FALSE(g.line.inst_executed == c.line.inst_executed)
          << "an unchanged line listed as new and gone: :" << c.line.line << " / :" << g.line.line;
    }
  }
  EXPECT_EQ(gone_lines, 0);
  EXPECT_EQ(new_lines, 0);
}

TEST_F(UserProject, EachInstantiationOfATemplateKernelMatchesItselfAndNamesTheEditedHelperLine) {
  const Build a = build(compiler_, root_ / "a", false, true);
  const Build b = build(compiler_, root_ / "b" / "checkout", true, true);
  // Two kernels of one template, two keys (template arguments kept); each the same kernel in both builds.
  const Kernel &four = a.of("poly_tmplILi4E"), &eight = a.of("poly_tmplILi8E");
  EXPECT_NE(function_key(four.name), function_key(eight.name));
  EXPECT_NE(function_key(four.name).find("poly_tmpl<4>"), std::string::npos) << function_key(four.name);
  EXPECT_NE(four.name, b.of("poly_tmplILi4E").name);  // the anonymous namespace's name changed with the edit
  EXPECT_EQ(function_key(four.name), function_key(b.of("poly_tmplILi4E").name));
  EXPECT_EQ(function_key(eight.name), function_key(b.of("poly_tmplILi8E").name));
  for (const char* part : {"poly_tmplILi4E", "poly_tmplILi8E"}) {
    SCOPED_TRACE(part);
    // The helper's line (4, then 5) inlined at the template's loop (19, then 20) moved most, first.
    const std::vector<analysis::LineChange> changes = analysis::changed_lines(a.of(part).source, b.of(part).source);
    ASSERT_FALSE(changes.empty());
    const analysis::LineChange& first = changes.front();
    std::printf("%s: %s\n", part, reports::line_change_text(first).c_str());
    EXPECT_EQ(reports::line_place(first.line), "poly.cu:5 (inlined at :20)");
    EXPECT_EQ(first.line.text, "return __fadd_rn(__fmul_rn(acc, x), c);");
    EXPECT_TRUE(first.edited);
    for (const analysis::LineChange& c : changes) EXPECT_FALSE(c.is_new || c.is_gone) << c.line.line;
  }
  // The two instantiations are two kernels: <8> runs the helper twice as often as <4>, in both builds.
  const SourceLine* helper4 = find(four.source, 4, 19);
  const SourceLine* helper8 = find(eight.source, 4, 19);
  ASSERT_NE(helper4, nullptr);
  ASSERT_NE(helper8, nullptr);
  EXPECT_GT(helper8->inst_executed, helper4->inst_executed);
}

}  // namespace
}  // namespace gpuperf
