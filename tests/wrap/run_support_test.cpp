// omnirt-run's helpers: input specs, seeded inputs, .npy files, latency, the
// timed runs read back from a report.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <stdexcept>

#include "inputs.h"
#include "latency.h"
#include "npy.h"
#include "run_times.h"
#include "wrap_test_util.h"

using namespace omnirt::run;
using ::testing::HasSubstr;

namespace {

TEST(InputSpec, ParsesShapeAndDtype) {
  const HostTensor t = parse_input_spec("1x3x224x224:f32");
  EXPECT_EQ(t.shape, (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(t.dtype.code, kDLFloat);
  EXPECT_EQ(t.bytes.size(), 1u * 3 * 224 * 224 * 4);
  EXPECT_EQ(parse_input_spec("2x16").dtype.bits, 32);  // f32 by default
  const HostTensor scalar = parse_input_spec("scalar:i64");
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.bytes.size(), 8u);
}

TEST(InputSpec, RejectsMalformedSpecs) {
  for (const char* bad : {"2xx3", "2x-3", "x", "", "2x3:q7", "2x3:"}) {
    EXPECT_THROW(parse_input_spec(bad), std::invalid_argument) << bad;
  }
}

TEST(InputSpec, RandomFillIsSeeded) {
  HostTensor a = parse_input_spec("64:f32"), b = a, c = a;
  fill_random(a, 7);
  fill_random(b, 7);
  fill_random(c, 8);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_NE(a.bytes, c.bytes);
  const auto* f = reinterpret_cast<const float*>(a.bytes.data());
  for (int i = 0; i < 64; ++i) {
    EXPECT_GE(f[i], -1.0f);
    EXPECT_LT(f[i], 1.0f);
  }
}

TEST(Npy, RoundTripsEveryShapeKind) {
  for (const char* spec : {"2x3:f32", "4:i64", "scalar:f64", "2x2:i32", "3:bool"}) {
    HostTensor t = parse_input_spec(spec);
    fill_random(t, 1);
    const std::string path = wraptest::write_temp("", ".npy");
    write_npy(path, t);
    const HostTensor back = read_npy(path);
    EXPECT_EQ(back.shape, t.shape) << spec;
    EXPECT_EQ(back.dtype.code, t.dtype.code) << spec;
    EXPECT_EQ(back.dtype.bits, t.dtype.bits) << spec;
    EXPECT_EQ(back.bytes, t.bytes) << spec;
  }
}

// A file as numpy writes it: np.save(p, np.arange(3, dtype='<i4')).
TEST(Npy, ReadsNumpysOwnHeader) {
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(header.size());
  file += '\0';
  file += header;
  const int32_t values[3] = {0, 1, 2};
  file.append(reinterpret_cast<const char*>(values), sizeof values);
  const HostTensor t = read_npy(wraptest::write_temp(file, ".npy"));
  EXPECT_EQ(t.shape, std::vector<int64_t>{3});
  EXPECT_EQ(t.dtype.code, kDLInt);
  EXPECT_EQ(reinterpret_cast<const int32_t*>(t.bytes.data())[2], 2);
}

TEST(Npy, RejectsWhatItCannotRead) {
  auto error_of = [](const std::string& content) {
    try {
      read_npy(wraptest::write_temp(content, ".npy"));
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error_of("not numpy"), HasSubstr("bad magic"));
  const std::string v1 = std::string("\x93NUMPY\x01\x00", 8);
  auto with_header = [&](const std::string& h) {
    return v1 + static_cast<char>(h.size()) + '\0' + h;
  };
  EXPECT_THAT(error_of(with_header("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }")),
              HasSubstr("unsupported dtype '>f4'"));
  EXPECT_THAT(error_of(with_header("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }")),
              HasSubstr("Fortran-order"));
  EXPECT_THAT(
      error_of(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }") + "ab"),
      HasSubstr("truncated data: expected 16 bytes, found 2"));
  EXPECT_THAT(error_of(""), HasSubstr("bad magic"));
}

TEST(Latency, NearestRankPercentiles) {
  const Latency l = summarize({10, 1, 9, 2, 8, 3, 7, 4, 6, 5});
  EXPECT_EQ(l.median_ms, 5);
  EXPECT_EQ(l.p90_ms, 9);
  EXPECT_DOUBLE_EQ(l.mean_ms, 5.5);
  EXPECT_EQ(l.min_ms, 1);
  EXPECT_EQ(l.max_ms, 10);
  EXPECT_EQ(summarize({}).median_ms, 0);
}

// The timed runs are the last successful run stages; wrap and embedder stages
// and failed runs are not runs to time, and only runs with one have a device time.
TEST(RunTimes, AreTheLastSuccessfulRunsOfTheReport) {
  const auto report = nlohmann::ordered_json::parse(R"({"stages": [
      {"name": "wrap_module", "kind": "wrap", "ms": 90.0, "ok": true},
      {"name": "run", "kind": "run", "ms": 9.0, "device_ms": 8.0, "ok": true},
      {"name": "run", "kind": "run", "ms": 0.5, "device_ms": null, "ok": false},
      {"name": "run", "kind": "run", "ms": 2.0, "device_ms": 1.5, "ok": true},
      {"name": "prepare", "kind": "embedder", "ms": 7.0, "ok": true},
      {"name": "run", "kind": "run", "ms": 3.0, "device_ms": null, "ok": true}]})");
  const RunTimes last_two = timed_runs(report, 2);
  EXPECT_EQ(last_two.wall_ms, (std::vector<double>{2.0, 3.0}));
  EXPECT_EQ(last_two.device_ms, (std::vector<double>{1.5}));
  const RunTimes all = timed_runs(report, 10);
  EXPECT_EQ(all.wall_ms, (std::vector<double>{9.0, 2.0, 3.0}));
  EXPECT_TRUE(timed_runs(report, 0).wall_ms.empty());
}

}  // namespace
