"""Audit of MindSpore 2.10 nn, mindspore.numpy and top-level names no other test called: nn.LossBase
(get_loss with reductions and weights), nn.WithEvalCell, nn.TransformerDecoder (values and gradient with
fixed weights), nn.Optimizer's base API, nn.get_metric_fn, mnp.ravel_multi_index, ms.dispatch_threads_num
and the top-level training callbacks (values from MindSpore 2.10 CPU)."""

from ms_api_audit_table import run_cases

SETUP = """
x = T(np.array([[0.5, -0.25, 0.75], [0.125, 0.625, -1.5]], np.float32))
lab = T(np.array([[1.0, 0.0], [0.0, 1.0]], np.float32))

def fill(net):
    # deterministic weights: parameter k (in name order) gets 0.1*sin(k + arange)
    for k, p in enumerate(sorted(net.parameters_and_names(), key=lambda t: t[0])):
        shape = tuple(p[1].shape)
        p[1].set_data(T((0.1 * np.sin(k + np.arange(int(np.prod(shape)), dtype=np.float64))).reshape(shape).astype(np.float32)))
    return net

class MyLoss(nn.LossBase):
    def __init__(self, reduction='mean'):
        super().__init__(reduction)
    def construct(self, a, b):
        return self.get_loss(ops.abs(a - b))

class WLoss(nn.LossBase):
    def construct(self, a, b, w):
        return self.get_loss(ops.abs(a - b), w)

dense = fill(nn.Dense(3, 2))
def eval_cell():
    return nn.WithEvalCell(dense, nn.MSELoss())(x, lab)
def eval_cell_fp16():
    return nn.WithEvalCell(dense, nn.L1Loss(), add_cast_fp32=True)(x, lab)

def decoder(n, norm):
    layer = nn.TransformerDecoderLayer(4, 2, 6, dropout=0.0, batch_first=True)
    dec = nn.TransformerDecoder(layer, n, norm=nn.LayerNorm((4,)) if norm else None)
    return fill(dec)
tgt = T((np.sin(np.arange(2 * 3 * 4)) * 0.5).reshape(2, 3, 4).astype(np.float32))
mem = T((np.cos(np.arange(2 * 5 * 4)) * 0.5).reshape(2, 5, 4).astype(np.float32))
def dec_names(n, norm):
    return sorted(name for name, _ in decoder(n, norm).parameters_and_names())
def dec_out(n, norm, **kw):
    return decoder(n, norm)(tgt, mem, **kw)
def dec_grad():
    dec = decoder(1, True)
    return ms.grad(lambda t: dec(t, mem).sum())(tgt)

params = [ms.Parameter(T(np.ones((2,), np.float32)), name='w'), ms.Parameter(T(np.zeros((2,), np.float32)), name='bias')]
def opt_attrs(lr, wd=0.0, ls=1.0):
    o = nn.Optimizer(lr, params, weight_decay=wd, loss_scale=ls)
    return (float(o.get_lr().asnumpy()), o.weight_decay, o.loss_scale, len(o.parameters), o.is_group, o.dynamic_lr)
def opt_dyn():
    o = nn.Optimizer([0.1, 0.05, 0.01], params)
    return [float(o.get_lr().asnumpy()) for _ in range(1)], o.dynamic_lr
def opt_decay():
    o = nn.Optimizer(0.1, params, weight_decay=0.5)
    g = (T(np.array([1.0, 2.0], np.float32)), T(np.array([3.0, 4.0], np.float32)))
    return o.decay_weight(g)
def opt_scale():
    o = nn.Optimizer(0.1, params, loss_scale=4.0)
    g = (T(np.array([1.0, 2.0], np.float32)), T(np.array([3.0, 4.0], np.float32)))
    return o.scale_grad(g)
"""

# ---- recorded from MindSpore 2.10 (CPU), the same expressions with mindspore in place of mscustom
CASES = [
    ('MyLoss()(x, T(np.zeros((2, 3), np.float32)))', ('T', 'Float32', (), 0.625)),
    ("MyLoss('sum')(x, T(np.zeros((2, 3), np.float32)))", ('T', 'Float32', (), 3.75)),
    ("MyLoss('none')(x, T(np.zeros((2, 3), np.float32)))", ('T', 'Float32', (2, 3), [[0.5, 0.25, 0.75], [0.125, 0.625, 1.5]])),
    ('WLoss()(x, T(np.zeros((2, 3), np.float32)), T(np.array([[2.0], [0.5]], np.float32)))', ('T', 'Float32', (), 0.6875)),
    ("WLoss('sum')(x, T(np.zeros((2, 3), np.float32)), T(np.array([1.0, 2.0, 3.0], np.float32)))", ('T', 'Float32', (), 9.125)),
    ("MyLoss('avg')", ('X', 'ValueError', "For 'MyLoss', the 'reduction' must be in ['mean', 'sum', 'none'], but got avg.")),
    ('eval_cell()', (('T', 'Float32', (), 0.45887217), ('T', 'Float32', (2, 2), [[0.02992511, 0.04932392], [0.04618148, 0.05666662]]), ('T', 'Float32', (2, 2), [[1.0, 0.0], [0.0, 1.0]]))),
    ('eval_cell_fp16()', (('T', 'Float32', (), 0.50222844), ('T', 'Float32', (2, 2), [[0.02992511, 0.04932392], [0.04618148, 0.05666662]]), ('T', 'Float32', (2, 2), [[1.0, 0.0], [0.0, 1.0]]))),
    ('dec_names(2, True)', ('layers.0.dense1.bias', 'layers.0.dense1.weight', 'layers.0.dense2.bias', 'layers.0.dense2.weight', 'layers.0.multihead_attn.in_proj_bias', 'layers.0.multihead_attn.in_proj_weight', 'layers.0.multihead_attn.out_proj.bias', 'layers.0.multihead_attn.out_proj.weight', 'layers.0.norm1.beta', 'layers.0.norm1.gamma', 'layers.0.norm2.beta', 'layers.0.norm2.gamma', 'layers.0.norm3.beta', 'layers.0.norm3.gamma', 'layers.0.self_attn.in_proj_bias', 'layers.0.self_attn.in_proj_weight', 'layers.0.self_attn.out_proj.bias', 'layers.0.self_attn.out_proj.weight', 'layers.1.dense1.bias', 'layers.1.dense1.weight', 'layers.1.dense2.bias', 'layers.1.dense2.weight', 'layers.1.multihead_attn.in_proj_bias', 'layers.1.multihead_attn.in_proj_weight', 'layers.1.multihead_attn.out_proj.bias', 'layers.1.multihead_attn.out_proj.weight', 'layers.1.norm1.beta', 'layers.1.norm1.gamma', 'layers.1.norm2.beta', 'layers.1.norm2.gamma', 'layers.1.norm3.beta', 'layers.1.norm3.gamma', 'layers.1.self_attn.in_proj_bias', 'layers.1.self_attn.in_proj_weight', 'layers.1.self_attn.out_proj.bias', 'layers.1.self_attn.out_proj.weight', 'norm.beta', 'norm.gamma')),
    ('dec_out(1, False)', ('T', 'Float32', (2, 3, 4), [[[0.00657416, -0.03074866, 0.02694064, 0.05322216], [0.01564144, -0.00873721, 0.08986606, 0.09369154], [-0.01095995, 0.08296729, 0.11360594, 0.11262673]], [[0.01850677, -0.03111017, 0.06087497, 0.07631728], [0.01166295, 0.00604722, 0.09974575, 0.09963633], [-0.02444027, 0.1332888, 0.09960581, 0.11181666]]])),
    ('dec_out(2, True)', ('T', 'Float32', (2, 3, 4), [[[0.00794698, -0.04891395, 0.04720068, 0.16801614], [0.0088127, -0.04996328, 0.05391507, 0.16646576], [0.00291838, -0.06094863, 0.05815536, 0.18398167]], [[0.00865308, -0.04863341, 0.05039164, 0.16566142], [0.00856987, -0.05077851, 0.05436466, 0.1678866], [-0.00093751, -0.06541533, 0.05932645, 0.18984169]]])),
    ('dec_out(2, False, tgt_mask=T(np.triu(np.full((3, 3), -1e9, np.float32), 1)))', ('T', 'Float32', (2, 3, 4), [[[-0.144563, 0.00504597, -0.01813335, 0.0352336], [-0.14570814, 0.00255206, -0.01348532, 0.03366747], [-0.16240388, -0.0325967, -0.01878808, 0.04833497]], [[-0.14323646, 0.00664003, -0.01484117, 0.03369924], [-0.14740165, -0.00015598, -0.01411011, 0.03437876], [-0.16610551, -0.04653345, -0.01895316, 0.05694711]]])),
    ('dec_grad()', ('T', 'Float32', (2, 3, 4), [[[-0.01153887, -0.007869, 0.00161999, 0.01776619], [0.01676114, 0.02940272, -0.06779595, 0.02162569], [-0.0469319, 0.06787489, 0.03808392, -0.05903683]], [[-0.01100305, 0.01474482, -0.07292039, 0.06866241], [0.0237827, 0.05302997, -0.07425894, -0.00305424], [-0.06633595, 0.06545975, 0.02448036, -0.02411409]]])),
    ('float(nn.Optimizer(0.1, params).get_lr().asnumpy())', 0.10000000149011612),
    ('nn.Optimizer(0.01, params, loss_scale=2.0).loss_scale', 2.0),
    ('len(nn.Optimizer(0.01, params).parameters)', 2),
    ('float(nn.Optimizer(T(np.array([0.1, 0.05], np.float32)), params).get_lr().asnumpy())', 0.10000000149011612),
    ('nn.Optimizer(-0.1, params)', ('X', 'ValueError', "For 'Optimizer', the 'learning rate' must be float and must >= 0, but got '-0.1' with type 'float'.")),
    ('nn.Optimizer(0.1, params, loss_scale=0.0)', ('X', 'ValueError', "For 'Optimizer', the 'loss_scale' must be float and must > 0, but got '0.0' with type 'float'.")),
    ("type(nn.get_metric_fn('accuracy')).__name__", 'Accuracy'),
    ("type(nn.get_metric_fn('mae')).__name__", 'MAE'),
    ("nn.get_metric_fn('top_k_categorical_accuracy', k=2)._k", ('X', 'KeyError', '"For \'get_metric_fn\', unsupported metric top_k_categorical_accuracy, please refer to official websit')),
    ("nn.get_metric_fn('nope')", ('X', 'KeyError', '"For \'get_metric_fn\', unsupported metric nope, please refer to official website for more details abo')),
    ("mnp.ravel_multi_index(T(np.array([[3], [4]], np.int32)), (7, 6), mode='bad')", ('X', 'ValueError', "invalid mode. Expected 'wrap' or 'clip'")),
    ("[getattr(ms, n) is getattr(nn, n) for n in ('HausdorffDistance', 'MeanSurfaceDistance', 'RootMeanSquareDistance', 'OcclusionSensitivity', 'ConfusionMatrixMetric')]", [True, True, True, True, True]),
    ('mnp.concatenate(T(np.arange(24, dtype=np.float32).reshape(2, 3, 4))).shape', (6, 4)),
    ('mnp.concatenate(T(np.arange(24, dtype=np.float32).reshape(2, 3, 4)), 1)', ('T', 'Float32', (3, 8), [[0.0, 1.0, 2.0, 3.0, 12.0, 13.0, 14.0, 15.0], [4.0, 5.0, 6.0, 7.0, 16.0, 17.0, 18.0, 19.0], [8.0, 9.0, 10.0, 11.0, 20.0, 21.0, 22.0, 23.0]])),
    ('mnp.concatenate(T(np.arange(24, dtype=np.float32).reshape(2, 3, 4)), None).shape', (24,)),
    ('mnp.concatenate(T(np.arange(12, dtype=np.int32).reshape(3, 4)))', ('T', 'Int32', (12,), list(range(12)))),
    ('opt_attrs(0.1)[2:]', (1.0, 2, False, False)),
    ('opt_attrs(0.01, 0.1, 2.0)[2:]', (2.0, 2, False, False)),
    ('opt_dyn()', ((0.10000000149011612,), True)),
    ('opt_decay()', (('T', 'Float32', (2,), [1.5, 2.5]), ('T', 'Float32', (2,), [3.0, 4.0]))),
    ('opt_scale()', (('T', 'Float32', (2,), [0.25, 0.5]), ('T', 'Float32', (2,), [0.75, 1.0]))),
    ("nn.Optimizer(0.1, [{'params': params[:1], 'lr': 0.5}, {'params': params[1:]}]).is_group", True),
    ('nn.Optimizer(0.1, params, weight_decay=0.5, loss_scale=2.0).decay_weight((T(np.array([1.0, 2.0], np.float32)), T(np.array([3.0, 4.0], np.float32))))', (('T', 'Float32', (2,), [2.0, 3.0]), ('T', 'Float32', (2,), [3.0, 4.0]))),
    ('nn.Optimizer(0.1, params).scale_grad((T(np.array([1.0, 2.0], np.float32)),))', (('T', 'Float32', (2,), [1.0, 2.0]),)),
    ('ms.dispatch_threads_num(2)', None),
    ('ms.dispatch_threads_num(3)', ('X', 'RuntimeError', "The 'dispatch_threads_num' can not be set repeatedly.")),
    ("[getattr(ms.CheckpointConfig(), a) for a in ('save_checkpoint_steps', 'keep_checkpoint_max', 'integrated_save', 'format')]", (1, 5, True, 'ckpt')),
    ('ms.CheckpointConfig(keep_checkpoint_max=3, save_checkpoint_steps=10).keep_checkpoint_max', 3),
    ("[getattr(ms.EarlyStopping(), a) for a in ('monitor', 'patience', 'min_delta', 'baseline', 'restore_best_weights', 'verbose')]", ('eval_loss', 0, 0, None, False, False)),
    ("ms.EarlyStopping(mode='bad')", ('X', 'ValueError', "mode should be 'auto', 'min' or 'max', but got bad.")),
    ('type(ms.History()).__name__', 'History'),
    ("[getattr(ms, n) is getattr(ms.train, n) for n in ('Model', 'Callback', 'RunContext', 'LossMonitor', 'TimeMonitor', 'History', 'EarlyStopping', 'CheckpointConfig', 'ModelCheckpoint')]", (True, True, True, True, True, True, True, True, True)),
    ('ms.LossMonitor(3)._per_print_times', 3),
    ('ms.LossMonitor(-1)', ('X', 'ValueError', "The input value must be int and must >= 0, but got '-1' with type 'int'.")),
    ('ms.TimeMonitor(4).data_size', 4),
    ("ms.RunContext({'epoch_num': 2, 'cur_step_num': 5}).original_args().epoch_num", ('X', 'AttributeError', "'dict' object has no attribute 'epoch_num'")),
    ('ms.ModelCheckpoint(prefix=3)', ('X', 'ValueError', "For 'ModelCheckpoint', the argument 'prefix' for checkpoint file name is invalid, it must be callabl")),
]

# ---- MindSpore 2.10 gives the same indices as Float32 (docs/ops_conformance.md: mscustom keeps int32)
RAVEL = [
    ('mnp.ravel_multi_index(T(np.array([[3, 6, 6], [4, 5, 1]], np.int32)), (7, 6))', ('T', 'Int32', (3,), [22, 41, 37])),
    ("mnp.ravel_multi_index(T(np.array([[3, 6, 6], [4, 5, 1]], np.int32)), (7, 6), order='F')", ('T', 'Int32', (3,), [31, 41, 13])),
    ("mnp.ravel_multi_index(T(np.array([[3, 6, 9], [4, 5, 1]], np.int32)), (7, 6), mode='clip')", ('T', 'Int32', (3,), [22, 41, 37])),
    ("mnp.ravel_multi_index(T(np.array([[3, 6, 9], [4, -5, 1]], np.int32)), (7, 6), mode='wrap')", ('T', 'Int32', (3,), [22, 37, 13])),
    ('mnp.ravel_multi_index((T(np.array([1, 2])), T(np.array([0, 3]))), (4, 4))', ('T', 'Int32', (2,), [4, 11])),
    ('mnp.ravel_multi_index(T(np.array([[3, 6, 9], [4, 5, 1]], np.int32)), (7, 6))', ('T', 'Int32', (3,), [22, 41, 37])),
]


def test_nn_numpy_top_names_match_mindspore(tmp_path, monkeypatch):
    from mscustom import runtime
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(runtime._conf, "dispatch_threads_num", None)    # set once per process, as in MindSpore
    run_cases(SETUP, CASES, rtol=2e-5, atol=2e-6)


def test_ravel_multi_index_int32():
    run_cases(SETUP, RAVEL)
