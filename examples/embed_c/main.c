/*
 * Embedding OmniRT from C: create a host, select a backend, wrap a
 * TorchScript model, run it once on a constant input, and print the
 * wrap_module timeline, the outputs and the run report.
 *
 *   embed_c MODEL.pt SHAPE [BACKEND]      e.g. embed_c mlp.pt 2x16 cpu
 *
 * The input is float32 filled with 0.5. BACKEND defaults to "auto".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omnirt/host.h"

static const char* const kTierNames[] = {"compile", "override", "eager"};

/* Prints the failed call's status and the host's message; returns 1. */
static int report_failure(const char* what, omnirt_status status) {
  fprintf(stderr, "embed_c: %s failed: %s: %s\n", what, omnirt_status_name(status),
          omnirt_last_error()->message);
  return 1;
}

/* Parses "2x16" into shape[]; returns the rank, or -1 when malformed. */
static int parse_shape(const char* text, int64_t* shape, int max_rank) {
  int rank = 0;
  while (*text != '\0' && rank < max_rank) {
    char* end = NULL;
    const long long d = strtoll(text, &end, 10);
    if (end == text || d < 0) return -1;
    shape[rank++] = d;
    if (*end == 'x')
      ++end;
    else if (*end != '\0')
      return -1;
    text = end;
  }
  return *text == '\0' ? rank : -1;
}

static void print_timeline(const omnirt_module* module) {
  size_t i;
  printf("timeline:\n");
  for (i = 0; i < omnirt_module_attempt_count(module); ++i) {
    omnirt_attempt a;
    a.struct_size = sizeof a;
    if (omnirt_module_get_attempt(module, i, &a) != OMNIRT_STATUS_OK) continue;
    printf("  %-8s %-16s %8.3f ms  %s\n",
           a.tier >= 0 && a.tier <= 2 ? kTierNames[a.tier] : "unknown",
           a.selected ? "ok, selected" : omnirt_status_name(a.status), (double)a.elapsed_ns / 1e6,
           a.reason);
  }
}

static void print_outputs(DLManagedTensor* const* outputs, size_t count) {
  size_t i;
  int32_t d;
  for (i = 0; i < count; ++i) {
    const DLTensor* t = &outputs[i]->dl_tensor;
    printf("output %zu: shape ", i);
    for (d = 0; d < t->ndim; ++d) printf("%s%lld", d > 0 ? "x" : "", (long long)t->shape[d]);
    printf(", dtype code %u bits %u\n", (unsigned)t->dtype.code, (unsigned)t->dtype.bits);
  }
}

int main(int argc, char** argv) {
  omnirt_host* host = NULL;
  omnirt_backend* backend = NULL;
  omnirt_report* report = NULL;
  omnirt_module* module = NULL;
  omnirt_module_source source;
  DLManagedTensor* outputs[8];
  size_t num_outputs = 0, i;
  int64_t shape[8];
  int rank, rc = 1;
  int64_t numel = 1;
  float* data = NULL;
  DLTensor input;
  omnirt_status s;
  char* json = NULL;

  if (argc < 3 || (rank = parse_shape(argv[2], shape, 8)) < 0) {
    fprintf(stderr, "usage: %s MODEL.pt SHAPE [BACKEND]   (SHAPE like 1x3x224x224)\n", argv[0]);
    return 2;
  }
  if ((s = omnirt_host_create(NULL, &host)) != OMNIRT_STATUS_OK) return report_failure("host", s);
  if ((s = omnirt_host_get_backend(host, argc > 3 ? argv[3] : "auto", &backend)) !=
      OMNIRT_STATUS_OK) {
    rc = report_failure("select backend", s);
    goto done;
  }
  if ((s = omnirt_report_create(backend, NULL, &report)) != OMNIRT_STATUS_OK) {
    rc = report_failure("report", s);
    goto done;
  }

  memset(&source, 0, sizeof source);
  source.struct_size = sizeof source;
  source.format = "torchscript";
  source.path = argv[1];
  s = omnirt_wrap_module(backend, &source, "example", NULL, report, &module);
  if (s != OMNIRT_STATUS_OK) {
    rc = report_failure("wrap_module", s); /* the report below still has the timeline */
    goto print_report;
  }
  print_timeline(module);

  for (i = 0; i < (size_t)rank; ++i) numel *= shape[i];
  data = (float*)malloc((size_t)numel * sizeof(float) + 1);
  for (i = 0; i < (size_t)numel; ++i) data[i] = 0.5f;
  memset(&input, 0, sizeof input);
  input.data = data;
  input.device.device_type = kDLCPU;
  input.ndim = rank;
  input.dtype.code = kDLFloat;
  input.dtype.bits = 32;
  input.dtype.lanes = 1;
  input.shape = shape;
  /* A host-memory input: this example targets backends that compute on host
   * memory (cpu); omnirt-run shows the copy to device memory. */
  s = omnirt_module_run(module, &input, 1, NULL, outputs, 8, &num_outputs, report);
  if (s != OMNIRT_STATUS_OK) {
    rc = report_failure("run", s);
    goto print_report;
  }
  print_outputs(outputs, num_outputs);
  for (i = 0; i < num_outputs; ++i) outputs[i]->deleter(outputs[i]);
  rc = 0;

print_report:
  if (omnirt_report_to_json(report, &json) == OMNIRT_STATUS_OK) printf("report:\n%s\n", json);
  omnirt_string_free(json);
done:
  free(data);
  omnirt_module_destroy(module);
  omnirt_report_destroy(report);
  omnirt_host_destroy(host);
  return rc;
}
