// What the store tests on a real PostgreSQL server start from: a throwaway cluster of the test's own with an
// empty database "gpuperf" (skipped without server binaries, unless CI is set), and every run of a store
// exported as one interchange text, to compare two stores' contents.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "db/import_export.hpp"
#include "db/store.hpp"
#include "tests/support/pg_cluster.hpp"

namespace gpuperf::testing {

class PgDatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GPUPERF_REQUIRE_PG();
    cluster_ = std::make_unique<PgCluster>();
    cluster_->create_database("gpuperf");
  }
  std::string uri() const { return cluster_->uri("gpuperf"); }
  std::unique_ptr<PgCluster> cluster_;
};

inline std::string export_all(const db::Store& s) {
  std::vector<std::int64_t> ids;
  for (const auto& r : s.runs()) ids.push_back(r.id);
  std::ostringstream out;
  db::export_runs(s, ids, out);
  return out.str();
}

}  // namespace gpuperf::testing
