// Function keys on mangled names copied from cubins nvcc 13.0 built (-cubin -arch=sm_90 -lineinfo, with and
// without -rdc) of one file before and after an edit; tests/analysis/test_user_project_lines.cpp builds its
// own with nvcc and compares the keys read from the two cubins' symbol tables.
#include "core/function_key.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "core/source_roots.hpp"

namespace gpuperf {
namespace {

TEST(FunctionKey, AnonymousNamespaceHashesGoTheFileStays) {
  // poly.cu before and after an edit of its helper: the hash after the file's name follows its content.
  const std::string before = "_ZN39_GLOBAL__N__ff02ea06_7_poly_cu_3c9117dc11poly_kernelEPKfPfi";
  const std::string after = "_ZN39_GLOBAL__N__ff02ea06_7_poly_cu_cb1db78011poly_kernelEPKfPfi";
  const std::string elsewhere = "_ZN39_GLOBAL__N__f295200f_7_poly_cu_d7092ce011poly_kernelEPKfPfi";  // other path
  EXPECT_EQ(function_key(before), "[poly_cu]::poly_kernel(float const*, float*, int)");
  EXPECT_EQ(function_key(after), function_key(before));
  EXPECT_EQ(function_key(elsewhere), function_key(before));
  // The same kernel name in another file's anonymous namespace, or another kernel, is another key.
  EXPECT_NE(function_key("_ZN39_GLOBAL__N__ff02ea06_7_mesh_cu_3c9117dc11poly_kernelEPKfPfi"), function_key(before));
  EXPECT_NE(function_key("_ZN39_GLOBAL__N__ff02ea06_7_poly_cu_3c9117dc11poly_kerneXEPKfPfi"), function_key(before));
  // Inside a named namespace (the built-in suite's kernels).
  EXPECT_EQ(function_key("_ZN7gpuperf49_GLOBAL__N__0395d2d5_16_memory_access_cu_1454bd1214copy_coalescedEPKfPfj"),
            function_key("_ZN7gpuperf49_GLOBAL__N__030d5e2e_16_memory_access_cu_9a4bd12014copy_coalescedEPKfPfj"));
}

TEST(FunctionKey, EveryFormNvccWrites) {
  // A suffix that is the first external function's mangled name instead of a hash.
  EXPECT_EQ(function_key("_ZN39_GLOBAL__N__45264f10_8_names_cu__Z2goPf11anon_kernelEPf"),
            "[names_cu]::anon_kernel(float*)");
  // Template arguments stay, an anonymous-namespace type among them keyed by its file.
  EXPECT_EQ(function_key("_ZN39_GLOBAL__N__45264f10_8_names_cu__Z2goPf9anon_tmplIfEEvPT_"),
            "void [names_cu]::anon_tmpl<float>(float*)");
  EXPECT_EQ(function_key("_Z6taggedIN39_GLOBAL__N__45264f10_8_names_cu__Z2goPf3TagEEvPf"),
            "void tagged<[names_cu]::Tag>(float*)");
  EXPECT_NE(function_key("_Z11tmpl_kernelILi3EEvPf"), function_key("_Z11tmpl_kernelILi4EEvPf"));
  // An internal (static or anonymous) device function's _INTERNAL_ namespace.
  EXPECT_EQ(function_key("_ZN41_INTERNAL_fa518d22_10_fixture_cu_c03bc2a643_GLOBAL__N__fa518d22_10_fixture_cu_"
                         "c03bc2a66hornerEfff"),
            "[fixture_cu]::[fixture_cu]::horner(float, float, float)");
  // -rdc: statics carry a __nv_static_ prefix; the key is the one without -rdc.
  EXPECT_EQ(function_key("__nv_static_28__45264f10_8_names_cu__Z2goPf__Z13static_kernelPf"),
            function_key("_Z13static_kernelPf"));
  EXPECT_EQ(function_key("__nv_static_28__45264f10_8_names_cu__Z2goPf__ZN39_GLOBAL__N__45264f10_8_names_cu__Z2goPf"
                         "11anon_kernelEPf"),
            "[names_cu]::anon_kernel(float*)");
  // Lambdas lose their numbering (a lambda added above renumbers the rest).
  EXPECT_EQ(function_key("_Z5applyIfZ2goPfEUlfE0_EvPT_T0_"), function_key("_Z5applyIfZ2goPfEUlfE_EvPT_T0_"));
  EXPECT_EQ(function_key("_Z5applyIfZ2goPfEUlfE_EvPT_T0_"),
            "void apply<float, go(float*)::{lambda(float)}>(float*, go(float*)::{lambda(float)})");
}

TEST(FunctionKey, NamesThatAreNotMangledAreTheirOwnKey) {
  EXPECT_EQ(function_key("triton_poi_fused_add_0"), "triton_poi_fused_add_0");
  EXPECT_EQ(function_key("copy(float*)"), "copy(float*)");
  EXPECT_EQ(function_key(""), "");
  // Malformed: kept, never thrown on.
  EXPECT_EQ(function_key("_ZN99_GLOBAL__N__zz"), "_ZN99_GLOBAL__N__zz");
  EXPECT_EQ(function_key("__nv_static_9"), "__nv_static_9");
}

TEST(SourceRoots, PathsRelativeToTheDeepestRootWithoutTheFile) {
  add_source_root("/nonexistent/build-17/");
  add_source_root("/nonexistent/build-17/third_party/lib");
  add_source_root("relative/ignored");
  EXPECT_EQ(root_relative("/nonexistent/build-17/kernels/x.cu"), "kernels/x.cu");
  EXPECT_EQ(root_relative("/nonexistent/build-17/third_party/lib/k.cuh"), "k.cuh");
  EXPECT_EQ(root_relative("/nonexistent/build-170/kernels/x.cu"), "");
  EXPECT_EQ(root_relative("/elsewhere/x.cu"), "");
  // As a compiler records a relative source path (ccache or a hand-written build passing "../../kernels/x.cu"
  // from build/kernels): read lexically, the same file, without touching the disk.
  EXPECT_EQ(root_relative("/nonexistent/build-17/build/kernels/../../kernels/x.cu"), "kernels/x.cu");
  EXPECT_EQ(root_relative("/nonexistent/build-17/./kernels//x.cu"), "kernels/x.cu");
  EXPECT_EQ(root_relative("/nonexistent/build-17/../outside/x.cu"), "");
  add_embedded_source("kernels/x.cu", "line one\n  line two\n");
  const std::vector<std::string>* x = embedded_source("kernels/x.cu");
  ASSERT_NE(x, nullptr);
  ASSERT_EQ(x->size(), 2u);
  EXPECT_EQ((*x)[1], "  line two");
  EXPECT_EQ(embedded_source("kernels/y.cu"), nullptr);
}

TEST(SourceRoots, TheEnvironmentNamesARootForABuildNobodyMadeWithOurCMake) {
  EXPECT_EQ(root_relative("/nonexistent/app-src/src/k.cu"), "");
  ::setenv("GPUPERF_SOURCE_ROOT", "/nonexistent/app-src/", 1);
  EXPECT_EQ(root_relative("/nonexistent/app-src/src/k.cu"), "src/k.cu");
  ::setenv("GPUPERF_SOURCE_ROOT", "app-src", 1);  // relative: not a root
  EXPECT_EQ(root_relative("/nonexistent/app-src/src/k.cu"), "");
  ::unsetenv("GPUPERF_SOURCE_ROOT");
}

}  // namespace
}  // namespace gpuperf
