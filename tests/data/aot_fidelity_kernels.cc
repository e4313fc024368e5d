// C++ aot kernels against MindSpore's custom_aot_extra.h (the copy in mscustom/include) for
// tests/test_dynamic_shapes.py (InferShape with unknown dimensions) and
// tests/test_custom_attr_2d.py (2-D list attributes).
#include <cstdint>
#include <vector>

#include "custom_aot_extra.h"

static int64_t g_unknown_seen = 0;   // InferShape calls that saw an unknown (-1/-2) input dimension
static int64_t g_last_rank = -100;   // the first input's ndims at the last InferShape call

// Row sums of a 2-D float32 x: out[i] = sum_j x[i, j]. InferShape keeps x's first dimension
// (unknown stays unknown) and counts the calls that saw an unknown dimension.
extern "C" std::vector<int64_t> CustomRowSumInferShape(int *ndims, int64_t **shapes, AotExtra *extra) {
  (void)extra;
  g_last_rank = ndims[0];
  bool unknown = false;
  for (int i = 0; i < ndims[0]; ++i) unknown = unknown || shapes[0][i] < 0;
  if (unknown) ++g_unknown_seen;
  if (ndims[0] == 1 && shapes[0][0] == -2) return {-1};   // unknown rank: the row count is unknown too
  return {shapes[0][0]};
}

extern "C" int CustomRowSum(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                            void *stream, void *extra) {
  (void)nparam; (void)dtypes; (void)stream; (void)extra;
  if (ndims[0] != 2) return 21;
  const float *x = static_cast<const float *>(params[0]);
  float *out = static_cast<float *>(params[1]);
  int64_t m = shapes[0][0], n = shapes[0][1];
  for (int64_t i = 0; i < m; ++i) {
    float s = 0.0f;
    for (int64_t j = 0; j < n; ++j) s += x[i * n + j];
    out[i] = s;
  }
  return 0;
}

// out[0] = the number of InferShape calls of CustomRowSum that saw an unknown dimension,
// out[1] = the rank it saw last (what the framework showed the library, read back from it).
extern "C" int CustomUnknownSeen(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                                 void *stream, void *extra) {
  (void)nparam; (void)ndims; (void)shapes; (void)dtypes; (void)stream; (void)extra;
  int64_t *out = static_cast<int64_t *>(params[1]);
  out[0] = g_unknown_seen;
  out[1] = g_last_rank;
  return 0;
}

// out[i] = x[i] + the attributes, flattened in order: grid (listListInt) then table (listListFloat),
// each value weighted by its position (1-based), so a wrong order, shape or value shows in the result.
// out has x's shape; x has at least as many elements as the attributes have values.
extern "C" int CustomGridTable(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                               void *stream, void *extra_void) {
  (void)nparam; (void)dtypes; (void)stream;
  AotExtra *extra = static_cast<AotExtra *>(extra_void);
  std::vector<std::vector<int64_t>> grid = extra->Attr<std::vector<std::vector<int64_t>>>("grid");
  std::vector<std::vector<float>> table = extra->Attr<std::vector<std::vector<float>>>("table");
  const float *x = static_cast<const float *>(params[0]);
  float *out = static_cast<float *>(params[1]);
  int64_t n = 1;
  for (int i = 0; i < ndims[0]; ++i) n *= shapes[0][i];
  for (int64_t i = 0; i < n; ++i) out[i] = x[i];
  int64_t k = 0;
  for (size_t r = 0; r < grid.size(); ++r) {
    for (size_t c = 0; c < grid[r].size(); ++c, ++k) {
      if (k < n) out[k] += static_cast<float>(grid[r][c]) * static_cast<float>(r + 1);
    }
  }
  for (size_t r = 0; r < table.size(); ++r) {
    for (size_t c = 0; c < table[r].size(); ++c, ++k) {
      if (k < n) out[k] += table[r][c] * static_cast<float>(r + 1);
    }
  }
  return 0;
}
