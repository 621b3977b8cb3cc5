// Which --db values name a PostgreSQL server, and how each is shown without its password.
#include <gtest/gtest.h>

#include "db/server_location.hpp"
#include "db/store.hpp"

namespace gpuperf::db {
namespace {

TEST(ServerLocation, UrisAndKeywordStringsAreServersPathsAreFiles) {
  for (const char* s :
       {"postgresql://runner@perf-db/gpuperf", "postgres://perf-db", "postgresql:///gpuperf?host=/run/pg",
        "host=perf-db dbname=gpuperf", "dbname=gpuperf", "service=gpuperf", " host = db "}) {
    EXPECT_TRUE(is_server_location(s)) << s;
  }
  for (const char* s : {"gpuperf.db", "/tmp/a b.db", "runs=1.db", "results/host=x.db", ":memory:", "", "=x",
                        "postgresql:/x.db", "host=db dbname='unterminated"}) {
    EXPECT_FALSE(is_server_location(s)) << s;
  }
}

TEST(ServerLocation, PasswordsAreNeverShown) {
  const std::pair<const char*, const char*> cases[] = {
      {"postgresql://runner:s3cret@perf-db:5433/gpuperf", "postgresql://runner@perf-db:5433/gpuperf"},
      {"postgresql://runner:s3cret@perf-db/gpuperf?sslmode=require&password=x2",
       "postgresql://runner@perf-db/gpuperf?sslmode=require"},
      {"postgresql://runner@perf-db/gpuperf?password=x2", "postgresql://runner@perf-db/gpuperf"},
      {"postgresql://perf-db", "postgresql://perf-db"},
      {"postgresql://:s3cret@perf-db", "postgresql://@perf-db"},
      {"postgresql:///gpuperf?host=/run/pg&user=r", "postgresql:///gpuperf?host=/run/pg&user=r"},
      {"host=db password=s3cret dbname=g", "host=db dbname=g"},
      {"host=db password='s3 cret\\' x' dbname=g", "host=db dbname=g"},
      {"host=db password = s3cret", "host=db"},
      {"gpuperf.db", "gpuperf.db"},
  };
  for (const auto& [in, shown] : cases) {
    EXPECT_EQ(display_location(in), shown) << in;
    EXPECT_EQ(display_location(in).find("s3"), std::string::npos) << in;
  }
}

}  // namespace
}  // namespace gpuperf::db
