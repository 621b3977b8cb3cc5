// What both engines must do with a team's answers (db/answers.hpp), written once: the SQLite test
// (tests/db/test_answers.cpp) and the PostgreSQL one (tests/postgres/test_pg_answers.cpp) run it on their store.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/errors.hpp"
#include "db/store.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::testing {

inline void check_answers(db::Store& s) {
  s.insert_run(make_run("11111111-0000-4000-8000-000000000001", "2026-11-01T02:00:00Z"));
  s.insert_run(make_run("11111111-0000-4000-8000-000000000002", "2026-11-02T02:00:00Z", "main", 1.3));
  const db::RunInfo step = *s.find_run("11111111-0000-4000-8000-000000000002");
  const auto bench = s.find_benchmarks("matmul/naive[n=1024]");
  ASSERT_EQ(bench.size(), 1u);
  EXPECT_EQ(s.find_benchmarks("matmul/naive").size(), 1u);  // the bare name of a one-instance benchmark
  EXPECT_TRUE(s.find_benchmarks("matmul/nope").empty());

  db::Acknowledgement a;
  a.machine_id = step.machine_id;
  a.benchmark_id = bench.front().first;
  a.metric = "duration";
  a.run_id = step.id;
  a.reason = "new kernel: correct and slower";
  a.link = "https://example.org/issues/123";
  a.by = "ana";
  a.accepted = true;
  a.uuid = "aaaaaaaa-0000-4000-8000-000000000001";
  EXPECT_TRUE(s.add_acknowledgement(a));
  EXPECT_FALSE(s.add_acknowledgement(a));  // idempotent on uuid (import, merge)
  db::Acknowledgement no_reason = a;
  no_reason.uuid.clear();
  no_reason.reason = "  ";
  EXPECT_THROW(s.add_acknowledgement(no_reason), InputError);

  auto acks = s.acknowledgements();
  ASSERT_EQ(acks.size(), 1u);
  EXPECT_EQ(acks[0].reason, a.reason);
  EXPECT_EQ(acks[0].link, a.link);
  EXPECT_EQ(acks[0].by, "ana");
  EXPECT_TRUE(acks[0].accepted);
  EXPECT_FALSE(acks[0].undone);
  EXPECT_EQ(acks[0].run_uuid, step.uuid);
  EXPECT_EQ(acks[0].instance.display_name(), "matmul/naive[n=1024]");
  EXPECT_EQ(acks[0].fingerprint, step.fingerprint);
  EXPECT_EQ(acks[0].at.back(), 'Z');  // now, in the stored form

  EXPECT_TRUE(s.undo_acknowledgement(acks[0].id, "bo", "2026-11-03T09:00:00Z"));
  EXPECT_FALSE(s.undo_acknowledgement(acks[0].id, "bo", ""));  // undone already
  EXPECT_THROW(s.undo_acknowledgement(999, "bo", ""), InputError);
  acks = s.acknowledgements();
  ASSERT_EQ(acks.size(), 1u);  // the history keeps it, undone
  EXPECT_TRUE(acks[0].undone);
  EXPECT_EQ(acks[0].undone_by, "bo");
  EXPECT_EQ(acks[0].undone_at, "2026-11-03T09:00:00Z");

  // The database filters what a reader asks for: a second, active acknowledgement (not accepted) at the first run.
  const db::RunInfo first = *s.find_run("11111111-0000-4000-8000-000000000001");
  db::Acknowledgement b = a;
  b.uuid = "aaaaaaaa-0000-4000-8000-000000000002";
  b.run_id = first.id;
  b.accepted = false;
  b.reason = "tracked in #124";
  EXPECT_TRUE(s.add_acknowledgement(b));
  const auto reasons = [&](const db::AckFilter& f) {
    std::vector<std::string> out;
    for (const auto& k : s.acknowledgements(f)) out.push_back(k.reason + (k.undone ? " (undone)" : ""));
    return out;
  };
  using Reasons = std::vector<std::string>;
  EXPECT_EQ(reasons({}), (Reasons{"new kernel: correct and slower (undone)", "tracked in #124"}));
  db::AckFilter f;
  f.active_only = true;
  EXPECT_EQ(reasons(f), Reasons{"tracked in #124"});
  f.accepted_only = true;  // the accepted one is undone: none is both
  EXPECT_TRUE(reasons(f).empty());
  f = {};
  f.run_id = step.id;
  EXPECT_EQ(reasons(f), Reasons{"new kernel: correct and slower (undone)"});
  f = {};
  f.accepted_only = true;
  f.machine_id = step.machine_id;
  f.benchmark_id = a.benchmark_id;
  EXPECT_EQ(reasons(f), Reasons{"new kernel: correct and slower (undone)"});
  f.machine_id = step.machine_id + 1000;  // another machine
  EXPECT_TRUE(reasons(f).empty());

  db::Annotation on_run;
  on_run.run_id = step.id;
  on_run.text = "driver 590 installed";
  on_run.by = "ana";
  EXPECT_TRUE(s.add_annotation(on_run));
  db::Annotation on_night;
  on_night.machine_id = step.machine_id;
  on_night.night = "2026-11-01";
  on_night.text = "GPU replaced";
  EXPECT_TRUE(s.add_annotation(on_night));
  db::Annotation on_commit;
  on_commit.commit = step.commit;
  on_commit.text = "switched to cuBLAS";
  on_commit.at = "2026-11-02T10:00:00+02:00";
  EXPECT_TRUE(s.add_annotation(on_commit));
  db::Annotation two = on_run;
  two.commit = "abc1234";
  EXPECT_THROW(s.add_annotation(two), InputError);  // one target only
  db::Annotation bad_night = on_night;
  bad_night.night = "yesterday";
  EXPECT_THROW(s.add_annotation(bad_night), InputError);
  db::Annotation no_text = on_run;
  no_text.text = "";
  EXPECT_THROW(s.add_annotation(no_text), InputError);

  const auto notes = s.annotations();
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0].run_uuid, step.uuid);
  EXPECT_EQ(notes[0].text, "driver 590 installed");
  EXPECT_EQ(notes[1].night, "2026-11-01");
  EXPECT_EQ(notes[1].fingerprint, step.fingerprint);
  EXPECT_EQ(notes[2].commit, step.commit);
  EXPECT_EQ(notes[2].at, "2026-11-02T08:00:00Z");
  db::Annotation again = notes[2];
  EXPECT_FALSE(s.add_annotation(again));  // its uuid is stored
}

}  // namespace gpuperf::testing
