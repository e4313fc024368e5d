"""nn.Adam(use_amsgrad=True), nn.Adadelta and nn.FTRL: three steps on the same parameters and gradients as
real MindSpore 2.10 (CPU), whose parameters and optimizer states after each step are written here.
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn

# printed by MindSpore 2.10: the parameters (w, beta) after each of the 3 steps, and the states at the end
MS = {
    'adam_ams' : {'steps': [[[0.40000004, -0.90000004, 1.9000001, 7.4505806e-09, 0.0, -0.20000005], [0.90000015, -1.9000003, 0.15000001]], [[0.34073541, -0.84478045, 1.8259193, -0.071809404, -0.074413195, -0.11969625], [0.9442215, -1.9494191, 0.081167594]], [[0.27453369, -0.79601038, 1.8381679, -0.10429721, -0.14833024, -0.078193873], [0.96616, -2.0158587, 0.032880321]]], 'states': {'global_step': [3.0], 'learning_rate': [0.1], 'beta1_power': [0.72899991], 'beta2_power': [0.99700308], 'moment1.w': [0.11200002, -0.15500003, -0.015000008, 0.16100001, 0.059000015, -0.069000006], 'moment1.beta': [-0.018800002, 0.03890001, 0.30300003], 'moment2.w': [0.0011679761, 0.004121861, 0.00061198988, 0.01002184, 0.00025998664, 0.0011279464], 'moment2.beta': [0.00029966619, 0.00013988822, 0.016067799], 'vhat.w': [0.0011679761, 0.004121861, 0.00061198988, 0.01002184, 0.00025998664, 0.0011279464], 'vhat.beta': [0.00029966619, 0.00013988822, 0.016067799]}},
    'adam_ams_wd' : {'steps': [[[0.45015013, -0.95007521, 1.9502249, 0.050052479, 0.0, -0.25015306], [0.95077825, -1.9515327, 0.20003951]], [[0.42160994, -0.92322201, 1.9068726, 0.016848344, -0.037115339, -0.21127652], [0.97497791, -1.9780382, 0.16847602]], [[0.38733131, -0.89960653, 1.8968453, 0.0046218932, -0.07535094, -0.19298087], [0.98576367, -2.0130315, 0.14875735]]], 'states': {'global_step': [3.0], 'learning_rate': [0.050000001], 'beta1_power': [0.51200002], 'beta2_power': [0.72899991], 'moment1.w': [0.21403459, -0.29446563, 0.046941034, 0.21841779, 0.11525768, -0.11206797], 'moment1.beta': [-0.034399997, 0.075200006, 0.46799999], 'moment2.w': [0.10912525, 0.3695372, 0.061846945, 0.83731401, 0.02553023, 0.098266765], 'moment2.beta': [0.026740005, 0.012910003, 1.3059003], 'vhat.w': [0.11025001, 0.44100004, 0.061846945, 0.90601015, 0.02553023, 0.10609002], 'vhat.beta': [0.028600005, 0.012910003, 1.6000004]}},
    'adadelta' : {'steps': [[[0.49683774, -0.99683774, 1.9968377, 0.096837729, 0.0, -0.29683775], [0.99683809, -1.9968393, 0.24683772]], [[0.49730653, -0.99753618, 1.9963689, 0.096524231, -0.0031606974, -0.29591522], [1.001019, -2.001102, 0.24671991]], [[0.49553421, -0.99705458, 1.9998691, 0.098038763, -0.0075532626, -0.29729679], [0.99985105, -2.0044951, 0.24708191]]], 'states': {'global_step': [3.0], 'learning_rate': [1.0], 'accum.w': [0.097900018, 0.33610007, 0.056475013, 0.83260018, 0.025900006, 0.09360002], 'accum.beta': [0.026740005, 0.012910004, 1.3059002], 'accum_update.w': [1.1438799e-06, 8.7709287e-07, 2.0548666e-06, 1.0482252e-06, 2.8285644e-06, 1.077459e-06], 'accum_update.beta': [2.5193833e-06, 3.5958976e-06, 8.2435287e-07]}},
    'adadelta_wd' : {'steps': [[[0.46472457, -0.9646647, 1.9648237, 0.06465441, 0.0, -0.26472768], [0.96666664, -1.9711325, 0.21465018]], [[0.46755853, -0.97004592, 1.9466543, 0.060833, -0.028867515, -0.25283858], [1.0120177, -2.0137985, 0.21325357]], [[0.44535673, -0.96179116, 1.9748402, 0.078935057, -0.073355891, -0.26783904], [0.99881238, -2.0486031, 0.21767993]]], 'states': {'global_step': [3.0], 'learning_rate': [0.5], 'accum.w': [0.18149658, 0.58875036, 0.10529979, 1.3640872, 0.051024314, 0.15909538], 'accum.beta': [0.047119997, 0.02368, 2.0676], 'accum_update.w': [0.0010365867, 0.00071232079, 0.001480371, 0.00091114058, 0.0021167058, 0.00090747402], 'accum_update.beta': [0.0020246925, 0.0025608062, 0.00065672264]}},
    'ftrl' : {'steps': [[[0.34829086, -0.84283847, 0.93010992, 0.088522658, 0.0, -0.20859315], [0.15431122, -0.092773311, 0.22930036]], [[0.34838578, -0.84298503, 0.9300257, 0.088456511, -0.00030151138, -0.20840581], [0.15511186, -0.093444131, 0.22927545]], [[0.34803084, -0.84288782, 0.93073648, 0.088770546, -0.0011348447, -0.20867631], [0.15495375, -0.093852378, 0.22934999]]], 'states': {'global_step': [3.0], 'learning_rate': [0.001], 'moments.w': [1.27, 4.23, 0.71249998, 10.14, 0.36000001, 1.23], 'moments.beta': [0.39999998, 0.24000001, 16.200001], 'linear.w': [-392.21082, 1733.5642, -785.63196, -282.67529, 0.68090683, 231.43321], 'linear.beta': [-98.00135, 45.978088, -923.11584]}},
    'ftrl_l1l2' : {'steps': [[[0.21569456, -0.69029021, 0.84093595, -0.011951673, 0.0, -0.084040754], [0.12221366, -0.27207628, 0.12411629]], [[0.22252673, -0.70096618, 0.82507473, -0.018462334, -0.010816481, -0.065856569], [0.18897898, -0.31696793, 0.12134435]], [[0.18801218, -0.68857813, 0.87725103, 0.012710167, -0.084032215, -0.090655737], [0.17291716, -0.34365344, 0.12842497]]], 'states': {'global_step': [3.0], 'learning_rate': [0.1], 'moments.w': [1.4869485, 4.736299, 0.97577965, 10.303318, 0.45891953, 1.3904243], 'moments.beta': [0.54206473, 0.39274168, 16.49613], 'linear.w': [-2.2501502, 15.063098, -8.650712, -0.35848927, 0.62262577, 1.1226046], 'linear.beta': [-1.23002, 2.2173915, -5.1711721]}},
    'ftrl_pow' : {'steps': [[[0.20787957, -0.50805902, 0.62656039, -0.054732181, 0.0, -0.0081103221], [0.0, 0.0, 0.043501411]], [[0.21757133, -0.52757794, 0.61972409, -0.065030023, 0.0, 0.0], [0.17672166, 0.0, 0.0]], [[0.18033911, -0.51460236, 0.68614668, -0.015119902, -0.013586555, -0.017325385], [0.16355786, -0.029268045, 0.052101884]]], 'states': {'global_step': [3.0], 'learning_rate': [0.1], 'moments.w': [1.27, 4.23, 0.71249998, 10.14, 0.36000001, 1.23], 'moments.beta': [0.39999998, 0.24000001, 16.200001], 'linear.w': [-1.4374524, 8.431839, -5.6980119, 0.80294263, 0.60000002, 0.68435478], 'linear.beta': [-0.74247998, 0.69074672, -0.70145631]}},
    'ftrl_l2wd' : {'steps': [[[0.21132879, -0.69261461, 0.8349455, -0.013592609, 0.0, -0.088477708], [0.11299735, -0.28129259, 0.12288287]], [[0.21819879, -0.70327991, 0.81915325, -0.020097917, -0.021632962, -0.070256099], [0.17983222, -0.32606319, 0.12011395]], [[0.18371619, -0.69088131, 0.87137723, 0.011079275, -0.094775423, -0.095018722], [0.16390392, -0.35263166, 0.12719759]]], 'states': {'global_step': [3.0], 'learning_rate': [0.1], 'moments.w': [1.4866519, 4.7363167, 0.97623253, 10.303581, 0.4578414, 1.3903514], 'moments.beta': [0.54274803, 0.39193437, 16.496174], 'linear.w': [-2.2473695, 15.063342, -8.6444521, -0.35607892, 0.64507926, 1.1241965], 'linear.beta': [-1.2140598, 2.2217438, -5.1712794]}},
    'ftrl_pow0' : {'steps': [[[0.15928897, -0.54080325, 0.55805105, -0.080510676, 0.0, -0.056700919], [0.059940536, -0.036986161, 0.021778289]], [[0.16898075, -0.56032223, 0.55121481, -0.090808518, -0.019390197, -0.037471835], [0.12626147, -0.085605867, 0.017434474]], [[0.13174853, -0.54734665, 0.6176374, -0.040898394, -0.087322958, -0.065665379], [0.11309765, -0.11629373, 0.030444158]]], 'states': {'global_step': [3.0], 'learning_rate': [0.1], 'moments.w': [1.27, 4.23, 0.71249998, 10.14, 0.36000001, 1.23], 'moments.beta': [0.39999998, 0.24000001, 16.200001], 'linear.w': [-1.4154251, 8.4365435, -5.5791626, 0.81944096, 0.64271611, 0.69872779], 'linear.beta': [-0.85915512, 0.75791353, -0.70203459]}},
}

G = [[np.array([[1.0, -2.0, 0.5], [3.0, 0.0, -1.0]], np.float32), np.array([0.2, -0.1, 4.0], np.float32)],
     [np.array([[-0.1, 0.3, 0.05], [0.2, 0.1, -0.2]], np.float32), np.array([-0.5, 0.3, 0.1], np.float32)],
     [np.array([[0.4, -0.2, -0.6], [-1.0, 0.5, 0.3]], np.float32), np.array([0.1, 0.2, -0.3], np.float32)]]


def params():
    return [ms.Parameter(ms.Tensor(np.array([[0.5, -1.0, 2.0], [0.1, 0.0, -0.3]], np.float32)), name="w"),
            ms.Parameter(ms.Tensor(np.array([1.0, -2.0, 0.25], np.float32)), name="beta")]


CASES = {
    "adam_ams": lambda ps: nn.Adam(ps, learning_rate=0.1, use_amsgrad=True),
    "adam_ams_wd": lambda ps: nn.Adam(ps, learning_rate=0.05, beta1=0.8, beta2=0.9, eps=1e-3, use_amsgrad=True,
                                      weight_decay=0.1),
    "adadelta": lambda ps: nn.Adadelta(ps),
    "adadelta_wd": lambda ps: nn.Adadelta(ps, learning_rate=0.5, rho=0.8, epsilon=1e-3, weight_decay=0.1),
    "ftrl": lambda ps: nn.FTRL(ps),
    "ftrl_l2wd": lambda ps: nn.FTRL(ps, initial_accum=0.2, learning_rate=0.1, l2=0.02, weight_decay=0.1),
    "ftrl_pow0": lambda ps: nn.FTRL(ps, learning_rate=0.1, lr_power=-0.3),
}
# with l1 > 0, MindSpore's CPU kernel takes sign(linear) as +1 for every non-zero linear (it tests
# ``linear ? l1 : -l1``); mscustom follows the documented FTRL (``sign(linear) * l1``), see below
L1_CASES = {
    "ftrl_l1l2": dict(initial_accum=0.2, learning_rate=0.1, lr_power=-0.5, l1=0.05, l2=0.02, weight_decay=0.1),
    "ftrl_pow": dict(initial_accum=0.1, learning_rate=0.1, lr_power=-0.3, l1=0.5, l2=0.0, weight_decay=0.0),
}
STATES = {"adam": ("moment1", "moment2", "vhat"), "adadelta": ("accum", "accum_update"), "ftrl": ("moments", "linear")}


@pytest.mark.parametrize("name", list(CASES))
def test_three_steps_match_mindspore(name):
    ps = params()
    opt = CASES[name](ps)
    for step, g in enumerate(G):
        opt(tuple(ms.Tensor(x) for x in g))
        for p, want in zip(ps, MS[name]["steps"][step]):
            np.testing.assert_allclose(p.asnumpy().ravel(), want, rtol=2e-5, atol=1e-7, err_msg=f"step {step + 1}")
    for kind in STATES[name.split("_")[0]]:
        for i, pname in enumerate(("w", "beta")):
            state = getattr(opt, kind)[i]
            assert state.name == f"{kind}.{pname}"
            np.testing.assert_allclose(state.asnumpy().ravel(), MS[name]["states"][f"{kind}.{pname}"], rtol=2e-5,
                                       atol=1e-7)


def ftrl_reference(initial_accum, learning_rate, lr_power, l1, l2, weight_decay, sign):
    """FTRL in float64 NumPy, three steps on params() and G; ``sign`` maps linear to the sign used with l1."""
    ws = [p.asnumpy().astype(np.float64) for p in params()]
    accums = [np.full_like(w, initial_accum) for w in ws]
    linears = [np.zeros_like(w) for w in ws]
    steps = []
    for grads in G:
        for w, acc, lin, g in zip(ws, accums, linears, grads):
            g = g + weight_decay * w
            new = acc + g * g
            lin += g - (new ** -lr_power - acc ** -lr_power) / learning_rate * w
            quad = new ** -lr_power / learning_rate + 2 * l2
            w[...] = np.where(np.abs(lin) > l1, (sign(lin) * l1 - lin) / quad, 0.0)
            acc[...] = new
        steps.append([w.ravel().copy() for w in ws])
    return steps


@pytest.mark.parametrize("name", list(L1_CASES))
def test_ftrl_l1_follows_the_documented_sign(name):
    kw = L1_CASES[name]
    kernel = ftrl_reference(**kw, sign=lambda lin: np.where(lin != 0, 1.0, -1.0))
    for got, want in zip(kernel, MS[name]["steps"]):         # the reference reproduces MindSpore's CPU kernel
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    documented = ftrl_reference(**kw, sign=np.sign)
    ps = params()
    opt = nn.FTRL(ps, **kw)
    for step, grads in enumerate(G):
        opt(tuple(ms.Tensor(x) for x in grads))
        for p, want in zip(ps, documented[step]):
            np.testing.assert_allclose(p.asnumpy().ravel(), want, rtol=1e-4, atol=1e-6)
    assert not np.allclose(ps[0].asnumpy().ravel(), MS[name]["steps"][-1][0], atol=1e-3)


def test_amsgrad_differs_from_plain_adam():
    a, b = params(), params()
    plain, ams = nn.Adam(a, learning_rate=0.1, beta2=0.5), nn.Adam(b, learning_rate=0.1, beta2=0.5, use_amsgrad=True)
    for g in G:
        plain(tuple(ms.Tensor(x) for x in g))
        ams(tuple(ms.Tensor(x) for x in g))
    assert not np.allclose(a[0].asnumpy(), b[0].asnumpy())
    assert not hasattr(plain, "vhat")


def test_optimizer_argument_errors():
    errors = [
        (lambda: nn.FTRL(params(), learning_rate=[0.1, 0.2]), ValueError,
         "For 'FTRL', dynamic learning rate and group learning rate are currently not supported in FTRL, they "
         "should all be false, but got dynamic learning rate True and group learning rate False."),
        (lambda: nn.FTRL(params(), lr_power=0.5), ValueError, "For 'FTRL', the argument 'lr_power' must <= 0.0, "
                                                             "but got 0.5."),
        (lambda: nn.FTRL(params(), initial_accum=-1.0), ValueError,
         "For 'FTRL', the argument 'initial_accum' must >= 0.0, but got -1.0."),
        (lambda: nn.FTRL(params(), l1=-1.0), ValueError, "For 'FTRL', the argument 'l1' must >= 0.0, but got -1.0."),
        (lambda: nn.Adadelta(params(), rho=1.5), ValueError,
         "For 'Adadelta', the 'rho' must be in range of [0.0, 1.0], but got 1.5 with type 'float'."),
        (lambda: nn.Adadelta(params(), epsilon=-1.0), ValueError,
         "For 'Adadelta', the 'epsilon' must be float and must >= 0, but got '-1.0' with type 'float'."),
        (lambda: nn.Adam(params(), use_amsgrad=1), TypeError,
         "For 'Adam', the type of 'use_amsgrad' should be 'bool', but got type 'int'."),
    ]
    for make, exc, text in errors:
        with pytest.raises(exc) as info:
            make()
        assert str(info.value) == text


def test_adadelta_trains_a_dense_layer():
    ms.set_seed(2)
    net = nn.Dense(3, 1)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Adadelta(net.trainable_params()))
    x = ms.Tensor(np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32))
    y = ms.Tensor(np.ones((16, 1), np.float32))
    losses = [float(step(x, y).asnumpy()) for _ in range(30)]
    assert losses[-1] < losses[0]
