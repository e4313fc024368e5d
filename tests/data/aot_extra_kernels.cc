// C++ aot kernels written against MindSpore's custom_aot_extra.h interface
// (the copy shipped in mscustom/include), for tests/test_aot_extra.py.
#include <cstdint>
#include <string>
#include <vector>

#include "custom_aot_extra.h"

static int64_t g_destroyed = 0;

// Everything Init read from the attributes, kept for the launches.
class AffineData : public AotKernelData {
 public:
  float scale = 0.0f;
  double shift = 0.0;
  int64_t repeat = 0;
  ~AffineData() override { ++g_destroyed; }
};

extern "C" int64_t DestroyedKernelData() { return g_destroyed; }

// out = x + scale * y + shift, where shift sums every other attribute;
// x + scale * y goes through the workspace first.
extern "C" int CustomAffineInit(int *ndims, int64_t **shapes, const char **dtypes, AotExtra *extra) {
  if (std::string(dtypes[0]) != "float32" || std::string(dtypes[2]) != "float32") return 11;
  int64_t n = 1;
  for (int i = 0; i < ndims[0]; ++i) n *= shapes[0][i];
  // bytes of the float buffer: the pool's rounding must not be relied on here
  extra->SetWorkSpace({static_cast<size_t>(n) * sizeof(float), 3});
  AffineData *d = new AffineData;
  d->scale = extra->Attr<float>("scale");
  std::vector<int64_t> offsets = extra->Attr<std::vector<int64_t>>("offsets");
  std::vector<float> weights = extra->Attr<std::vector<float>>("weights");
  std::vector<std::vector<int64_t>> grid;
  std::vector<std::vector<float>> table;
  if (extra->HasAttr("grid")) grid = extra->Attr<std::vector<std::vector<int64_t>>>("grid");
  if (extra->HasAttr("table")) table = extra->Attr<std::vector<std::vector<float>>>("table");
  std::string tag = extra->Attr<std::string>("tag");
  d->shift = static_cast<double>(extra->Attr<int64_t>("bias")) + (extra->Attr<bool>("flag") ? 1000.0 : 0.0) +
             static_cast<double>(tag.size()) * 100.0;
  for (int64_t v : offsets) d->shift += static_cast<double>(v);
  for (float v : weights) d->shift += v;
  for (const auto &row : grid)
    for (int64_t v : row) d->shift += 10.0 * static_cast<double>(v);
  for (const auto &row : table)
    for (float v : row) d->shift += 0.5 * v;
  d->repeat = extra->HasAttr("repeat") ? extra->Attr<int64_t>("repeat") : 1;
  extra->SetKernelData(d);
  return 0;
}

extern "C" int CustomAffine(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                            void *stream, void *extra_void) {
  (void)dtypes;
  (void)stream;
  if (nparam != 5) return 12;  // x, y, out, two workspace buffers
  AotExtra *extra = static_cast<AotExtra *>(extra_void);
  AffineData *d = static_cast<AffineData *>(extra->KernelData());
  if (d == nullptr || extra->WorkSpace().size() != 2) return 13;
  const float *x = static_cast<const float *>(params[0]);
  const float *y = static_cast<const float *>(params[1]);
  float *out = static_cast<float *>(params[2]);
  float *tmp = static_cast<float *>(params[3]);
  unsigned char *small = static_cast<unsigned char *>(params[4]);
  for (int k = 0; k < 512; ++k) small[k] = 1;  // the 3-byte request rounds up to 512 bytes
  int64_t n = 1;
  for (int i = 0; i < ndims[2]; ++i) n *= shapes[2][i];
  for (int64_t i = 0; i < n; ++i) tmp[i] = x[i] + d->scale * y[i];
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(tmp[i] + d->shift * d->repeat) + small[i % 512] - 1;
  return 0;
}

// out[i, j] = x[i] * y[j]; the output shape comes from InferShape.
extern "C" std::vector<int64_t> CustomOuterInferShape(int *ndims, int64_t **shapes, AotExtra *extra) {
  (void)ndims;
  int64_t extra_rows = extra->HasAttr("pad") ? extra->Attr<int64_t>("pad") : 0;
  return {shapes[0][0] + extra_rows, shapes[1][0]};
}

extern "C" int CustomOuter(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                           void *stream, void *extra) {
  (void)nparam; (void)ndims; (void)dtypes; (void)stream; (void)extra;
  const double *x = static_cast<const double *>(params[0]);
  const double *y = static_cast<const double *>(params[1]);
  double *out = static_cast<double *>(params[2]);
  int64_t m = shapes[0][0], n = shapes[1][0], rows = shapes[2][0];
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < n; ++j) out[i * n + j] = i < m ? x[i] * y[j] : 0.0;
  return 0;
}

// Two outputs: the first and second halves of x; their shapes come from InferShape.
extern "C" std::vector<std::vector<int64_t>> CustomHalvesInferShape(int *ndims, int64_t **shapes,
                                                                    AotExtra *extra) {
  (void)ndims;
  (void)extra;
  int64_t half = shapes[0][0] / 2;
  return {{half}, {shapes[0][0] - half}};
}

extern "C" int CustomHalves(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                            void *stream, void *extra) {
  (void)ndims; (void)dtypes; (void)stream; (void)extra;
  if (nparam != 3) return 12;
  const double *x = static_cast<const double *>(params[0]);
  double *a = static_cast<double *>(params[1]);
  double *b = static_cast<double *>(params[2]);
  for (int64_t i = 0; i < shapes[1][0]; ++i) a[i] = x[i];
  for (int64_t i = 0; i < shapes[2][0]; ++i) b[i] = x[shapes[1][0] + i];
  return 0;
}

// Reads an attribute as a type it does not have (the framework reports it).
extern "C" int CustomWrongType(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                               void *stream, void *extra_void) {
  (void)nparam; (void)ndims; (void)shapes; (void)dtypes; (void)stream;
  AotExtra *extra = static_cast<AotExtra *>(extra_void);
  std::string s = extra->Attr<std::string>("scale");
  static_cast<float *>(params[1])[0] = static_cast<float>(s.size());
  return 0;
}

// The string attribute, byte by byte, into a uint8 output (shape from InferShape).
extern "C" std::vector<int64_t> CustomEchoInferShape(int *ndims, int64_t **shapes, AotExtra *extra) {
  (void)ndims; (void)shapes;
  return {static_cast<int64_t>(extra->Attr<std::string>("text").size())};
}

extern "C" int CustomEcho(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                          void *stream, void *extra_void) {
  (void)nparam; (void)ndims; (void)dtypes; (void)stream;
  std::string s = static_cast<AotExtra *>(extra_void)->Attr<std::string>("text");
  unsigned char *out = static_cast<unsigned char *>(params[1]);
  for (int64_t i = 0; i < shapes[1][0]; ++i) out[i] = static_cast<unsigned char>(s[i]);
  return 0;
}

// A kernel whose author forgot extern "C": its name is mangled.
int CustomMangled(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes, void *stream,
                  void *extra) {
  (void)nparam; (void)params; (void)ndims; (void)shapes; (void)dtypes; (void)stream; (void)extra;
  return 0;
}
