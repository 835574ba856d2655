// The parts of the Triton backend that need no server: model and backend
// configs, datatypes, request checks and row copies.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend_settings.h"
#include "error.h"
#include "host_copy.h"
#include "model_config.h"
#include "tensor_types.h"

namespace omnirt::triton {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A config as Triton gives it (trimmed to the fields the backend reads,
// int64 dims written both ways protobuf and Triton do).
std::string config_json(const std::string& inputs, const std::string& outputs,
                        const std::string& extra = "") {
  return R"({"name":"m","backend":"omnirt","max_batch_size":4,"input":[)" + inputs + R"(],"output":[)" +
         outputs + "]" + extra + "}";
}

std::string tensor(const std::string& name, const std::string& type, const std::string& dims,
                   const std::string& extra = "") {
  return R"({"name":")" + name + R"(","data_type":")" + type + R"(","dims":[)" + dims + "]" + extra + "}";
}

// Runs `f`, expecting an Error with `code` whose message has `text`.
template <class F>
void expect_error(F&& f, TRITONSERVER_Error_Code code, const std::string& text) {
  try {
    f();
    FAIL() << "no error; expected one with '" << text << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_THAT(e.what(), HasSubstr(text));
  }
}

TEST(ModelConfig, PytorchNamingMapsPositionsWhateverTheOrder) {
  const ModelConfig c = parse_model_config(config_json(
      tensor("INPUT__1", "TYPE_INT64", "4") + "," + tensor("INPUT__0", "TYPE_FP32", R"("3","-1")"),
      tensor("OUTPUT__1", "TYPE_FP32", "2") + "," + tensor("OUTPUT__0", "TYPE_FP32", "2")));
  ASSERT_EQ(c.inputs.size(), 2u);
  EXPECT_EQ(c.inputs[0].name, "INPUT__0");  // sorted by position
  EXPECT_EQ(c.inputs[0].datatype, TRITONSERVER_TYPE_FP32);
  EXPECT_THAT(c.inputs[0].dims, ElementsAre(3, -1));
  EXPECT_EQ(c.inputs[1].name, "INPUT__1");
  EXPECT_EQ(c.inputs[1].position, 1u);
  EXPECT_EQ(c.outputs[0].name, "OUTPUT__1");  // outputs keep config order
  EXPECT_EQ(c.outputs[0].position, 1u);
  EXPECT_EQ(c.outputs[1].position, 0u);
  EXPECT_TRUE(c.batching());
  EXPECT_EQ(c.model_filename, "model.pt");
  EXPECT_EQ(c.wrap.backend, "auto");
  EXPECT_TRUE(c.wrap.compile);
  EXPECT_EQ(c.wrap.tag, "");
  EXPECT_EQ(c.wrap.format, "torchscript");
}

TEST(ModelConfig, OtherNamesTakeConfigOrder) {
  const ModelConfig c = parse_model_config(config_json(
      tensor("b", "TYPE_FP32", "1") + "," + tensor("a", "TYPE_FP32", "1"), tensor("y", "TYPE_FP32", "1")));
  EXPECT_EQ(c.inputs[0].name, "b");
  EXPECT_EQ(c.inputs[1].name, "a");
  EXPECT_EQ(c.find_input("a")->position, 1u);
  EXPECT_EQ(c.find_output("y")->position, 0u);
  EXPECT_EQ(c.find_output("z"), nullptr);
}

TEST(ModelConfig, ParametersAndFilename) {
  const ModelConfig c = parse_model_config(config_json(
      tensor("x", "TYPE_FP32", "1"), tensor("y", "TYPE_FP32", "1"),
      R"(,"default_model_filename":"net.pt","parameters":{"omnirt_backend":{"string_value":"cuda"},)"
      R"("compile":{"string_value":"Off"},"tag":{"string_value":"rms_norm"},)"
      R"("module_format":{"string_value":"aoti"},"INFERENCE_MODE":{"string_value":"true"}})"));
  EXPECT_EQ(c.model_filename, "net.pt");
  EXPECT_EQ(c.wrap.backend, "cuda");
  EXPECT_FALSE(c.wrap.compile);
  EXPECT_EQ(c.wrap.tag, "rms_norm");
  EXPECT_EQ(c.wrap.format, "aoti");
  EXPECT_THAT(c.unused_parameters, ElementsAre("INFERENCE_MODE"));
}

TEST(ModelConfig, RefusesWhatItCannotServe) {
  const auto x = tensor("x", "TYPE_FP32", "1");
  const auto y = tensor("y", "TYPE_FP32", "1");
  auto parse = [](const std::string& json) { return [json] { parse_model_config(json); }; };
  expect_error(parse(config_json(x, y, R"(,"parameters":{"compile":{"string_value":"maybe"}})")),
               TRITONSERVER_ERROR_INVALID_ARG, "parameter 'compile': expected true or false, got 'maybe'");
  expect_error(parse(config_json(tensor("s", "TYPE_STRING", "1"), y)), TRITONSERVER_ERROR_UNSUPPORTED,
               "input 's': TYPE_STRING is not supported");
  expect_error(parse(config_json(tensor("u", "TYPE_UINT32", "1"), y)), TRITONSERVER_ERROR_UNSUPPORTED,
               "OmniRT has no such dtype");
  expect_error(parse(config_json(tensor("x", "TYPE_FLOAT", "1"), y)), TRITONSERVER_ERROR_INVALID_ARG,
               "unknown data_type 'TYPE_FLOAT'");
  expect_error(parse(config_json(tensor("x", "TYPE_FP32", "1", R"(,"reshape":{"shape":[1]})"), y)),
               TRITONSERVER_ERROR_UNSUPPORTED, "input 'x': reshape");
  expect_error(parse(config_json(tensor("x", "TYPE_FP32", "1", R"(,"optional":true)"), y)),
               TRITONSERVER_ERROR_UNSUPPORTED, "optional");
  expect_error(parse(config_json(x, y, R"(,"sequence_batching":{"max_sequence_idle_microseconds":1})")),
               TRITONSERVER_ERROR_UNSUPPORTED, "sequence_batching");
  expect_error(parse(config_json(tensor("x", "TYPE_FP32", "-2"), y)), TRITONSERVER_ERROR_INVALID_ARG,
               "dims must be >= 0 or -1");
  expect_error(parse(config_json(tensor("INPUT__0", "TYPE_FP32", "1") + "," + x, y)),
               TRITONSERVER_ERROR_INVALID_ARG, "either every input is named NAME__<index> or none is");
  expect_error(parse(config_json(
                   tensor("INPUT__0", "TYPE_FP32", "1") + "," + tensor("INPUT__2", "TYPE_FP32", "1"), y)),
               TRITONSERVER_ERROR_INVALID_ARG, "index 2 leaves a gap");
  expect_error(
      parse(config_json(tensor("a__0", "TYPE_FP32", "1") + "," + tensor("b__0", "TYPE_FP32", "1"), y)),
      TRITONSERVER_ERROR_INVALID_ARG, "two inputs have index 0");
  expect_error(parse(R"({"name":"m","input":[],"output":[]})"), TRITONSERVER_ERROR_INVALID_ARG,
               "the config lists no inputs");
  expect_error(parse("not json"), TRITONSERVER_ERROR_INVALID_ARG, "not a JSON object");
}

TEST(RequestInput, ChecksDatatypeShapeBatchAndBytes) {
  const ModelConfig c =
      parse_model_config(config_json(tensor("x", "TYPE_FP32", "-1,3"), tensor("y", "TYPE_FP32", "1")));
  const TensorSpec& x = c.inputs[0];
  const int64_t good[] = {2, 5, 3};
  EXPECT_EQ(check_request_input(c, x, TRITONSERVER_TYPE_FP32, good, 3, 2 * 5 * 3 * 4), 2);
  expect_error([&] { check_request_input(c, x, TRITONSERVER_TYPE_FP64, good, 3, 240); },
               TRITONSERVER_ERROR_INVALID_ARG, "input 'x' of model 'm': expected datatype FP32, got FP64");
  const int64_t wrong[] = {2, 5, 4};
  expect_error([&] { check_request_input(c, x, TRITONSERVER_TYPE_FP32, wrong, 3, 160); },
               TRITONSERVER_ERROR_INVALID_ARG, "expected shape [-1,-1,3] (batch of 1..4), got [2,5,4]");
  const int64_t too_big[] = {5, 1, 3};
  expect_error([&] { check_request_input(c, x, TRITONSERVER_TYPE_FP32, too_big, 3, 60); },
               TRITONSERVER_ERROR_INVALID_ARG, "batch of 1..4");
  expect_error([&] { check_request_input(c, x, TRITONSERVER_TYPE_FP32, good, 2, 40); },
               TRITONSERVER_ERROR_INVALID_ARG, "expected shape");
  expect_error([&] { check_request_input(c, x, TRITONSERVER_TYPE_FP32, good, 3, 100); },
               TRITONSERVER_ERROR_INVALID_ARG, "needs 120 bytes, got 100");
}

TEST(ModuleOutput, MustMatchTheConfig) {
  const ModelConfig c =
      parse_model_config(config_json(tensor("x", "TYPE_FP32", "1"), tensor("y", "TYPE_INT64", "2")));
  int64_t shape[] = {3, 2};
  DLTensor t{};
  t.ndim = 2;
  t.shape = shape;
  t.dtype = DLDataType{kDLInt, 64, 1};
  EXPECT_NO_THROW(check_module_output(c, c.outputs[0], t, 3));
  expect_error([&] { check_module_output(c, c.outputs[0], t, 4); }, TRITONSERVER_ERROR_INTERNAL,
               "the module gave 3 rows for a batch of 4");
  t.dtype = DLDataType{kDLFloat, 32, 1};
  expect_error([&] { check_module_output(c, c.outputs[0], t, 3); }, TRITONSERVER_ERROR_INTERNAL,
               "output 'y' of model 'm' (module output 0): the config says INT64, the module gave FP32");
  t.dtype = DLDataType{kDLInt, 64, 1};
  shape[1] = 5;
  expect_error([&] { check_module_output(c, c.outputs[0], t, 3); }, TRITONSERVER_ERROR_INTERNAL,
               "the config says shape [-1,2], the module gave [3,5]");
}

TEST(TensorTypes, RoundTrips) {
  for (TRITONSERVER_DataType type :
       {TRITONSERVER_TYPE_BOOL, TRITONSERVER_TYPE_UINT8, TRITONSERVER_TYPE_INT8, TRITONSERVER_TYPE_INT16,
        TRITONSERVER_TYPE_INT32, TRITONSERVER_TYPE_INT64, TRITONSERVER_TYPE_FP16, TRITONSERVER_TYPE_FP32,
        TRITONSERVER_TYPE_FP64, TRITONSERVER_TYPE_BF16}) {
    ASSERT_TRUE(dlpack_type(type).has_value()) << datatype_name(type);
    EXPECT_EQ(datatype_of(*dlpack_type(type)), type);
    EXPECT_EQ(datatype_from_config(std::string("TYPE_") + datatype_name(type)), type);
    EXPECT_EQ(element_size(type) * 8, dlpack_type(type)->bits);
    EXPECT_TRUE(omnirt_type(type).has_value());
  }
  EXPECT_EQ(datatype_from_config("TYPE_STRING"), TRITONSERVER_TYPE_BYTES);
  EXPECT_FALSE(dlpack_type(TRITONSERVER_TYPE_UINT64).has_value());
  EXPECT_EQ(dlpack_type_name(DLDataType{kDLComplex, 64, 1}), "DLPack code 5 bits 64");
}

TEST(BackendSettings, ReadsItsKeysAndListsTheRest) {
  const BackendSettings s = parse_backend_settings(
      R"({"cmdline":{"config":"/etc/omnirt.yaml","plugin-dirs":"/a::/b","ignore-environment":"true",)"
      R"("skip-installed-plugins":"0","backend-directory":"/opt/backends","default-max-batch-size":"4"}})");
  EXPECT_EQ(s.config_path, "/etc/omnirt.yaml");
  EXPECT_THAT(s.plugin_dirs, ElementsAre("/a", "/b"));
  EXPECT_TRUE(s.ignore_environment);
  EXPECT_FALSE(s.skip_installed_plugins);
  EXPECT_THAT(s.other_keys, ElementsAre("backend-directory", "default-max-batch-size"));
  expect_error([] { parse_backend_settings(R"({"cmdline":{"ignore-environment":"sometimes"}})"); },
               TRITONSERVER_ERROR_INVALID_ARG,
               "--backend-config=omnirt,ignore-environment: expected true or false");
  EXPECT_TRUE(parse_backend_settings("{}").plugin_dirs.empty());
}

TEST(CopyRows, CompactAndStrided) {
  // A 3x2x2 tensor of int32 0..11.
  std::vector<int32_t> data(12);
  for (int i = 0; i < 12; ++i) data[i] = i;
  int64_t shape[] = {3, 2, 2};
  DLTensor t{};
  t.data = data.data();
  t.ndim = 3;
  t.shape = shape;
  t.dtype = DLDataType{kDLInt, 32, 1};
  EXPECT_TRUE(is_compact(t));
  EXPECT_EQ(span_bytes(t), 48u);
  std::vector<int32_t> out(8, -1);
  copy_rows(t, 1, 2, out.data());
  EXPECT_THAT(out, ElementsAre(4, 5, 6, 7, 8, 9, 10, 11));

  // The same memory seen transposed in its last two dimensions.
  int64_t strides[] = {4, 1, 2};
  t.strides = strides;
  EXPECT_FALSE(is_compact(t));
  EXPECT_EQ(span_bytes(t), 48u);
  std::vector<int32_t> rows(4, -1);
  copy_rows(t, 2, 1, rows.data());
  EXPECT_THAT(rows, ElementsAre(8, 10, 9, 11));

  // Every other row of a 6x2 buffer, with a byte offset of one row.
  int64_t shape2[] = {2, 2};
  int64_t strides2[] = {4, 1};
  DLTensor every_other{};
  every_other.data = data.data();
  every_other.byte_offset = 2 * sizeof(int32_t);
  every_other.ndim = 2;
  every_other.shape = shape2;
  every_other.strides = strides2;
  every_other.dtype = DLDataType{kDLInt, 32, 1};
  EXPECT_EQ(span_bytes(every_other), 6 * sizeof(int32_t));
  std::vector<int32_t> picked(4, -1);
  copy_rows(every_other, 0, 2, picked.data());
  EXPECT_THAT(picked, ElementsAre(2, 3, 6, 7));

  // A scalar.
  DLTensor scalar{};
  scalar.data = data.data() + 5;
  scalar.dtype = DLDataType{kDLInt, 32, 1};
  int32_t one = -1;
  copy_rows(scalar, 0, 1, &one);
  EXPECT_EQ(one, 5);
  EXPECT_EQ(span_bytes(scalar), 4u);
}

}  // namespace
}  // namespace omnirt::triton
