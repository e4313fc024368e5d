"""MindSpore's activations, 1-D / adaptive / ceil-mode pooling, Upsample, ZeroPad2d and three losses,
forward and gradient, against values printed by real MindSpore 2.10 (CPU) on the same inputs.

Every gradient is of ``sum(layer(x) * w)`` with ``w = 1, 2, 3, ...`` in the output's shape, so each
output's gradient is told apart.
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops
from mscustom.testing import check_grad

# name: (forward, gradient) or (shape, forward, gradient); printed by MindSpore 2.10 (7 significant digits)
MS = {
    'ELU' : ([-0.9816844, -0.950213, -0.8646648, -0.6321212, -0.3934695, 0.0, 0.5, 1.0, 2.0, 3.0, 4.0], [0.01831561, 0.09957409, 0.4060056, 1.471515, 3.032652, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0]),
    'HSwish' : ([0.0, 0.0, -0.3333333, -0.3333333, -0.2083333, 0.0, 0.2916667, 0.6666667, 1.666667, 3.0, 4.0], [0.0, -1.0, -0.5, 0.6666667, 1.666667, 3.0, 4.666667, 6.666667, 10.5, 15.0, 11.0]),
    'HSigmoid' : ([0.0, 0.0, 0.1666667, 0.3333333, 0.4166667, 0.5, 0.5833333, 0.6666667, 0.8333333, 1.0, 1.0], [0.0, 0.0, 0.5, 0.6666667, 0.8333333, 1.0, 1.166667, 1.333333, 1.5, 0.0, 0.0]),
    'Mish' : ([-0.07259187, -0.1456474, -0.2525013, -0.303401, -0.2207437, 0.0, 0.3752452, 0.8650982, 1.943959, 2.986535, 3.997413], [-0.05377311, -0.1867861, -0.3250652, 0.2368643, 1.447553, 3.599999, 6.204971, 8.392291, 9.62386, 10.21102, 11.04759]),
    'Hardtanh' : ([-1.0, -1.0, -1.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 2.0, 5.0, 6.0, 7.0, 4.0, 0.0, 0.0, 0.0]),
    'Hardtanh_m' : ([-2.0, -2.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 3.0], [0.0, 0.0, 1.5, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 5.0, 0.0]),
    'Softsign' : ([-0.8, -0.75, -0.6666667, -0.5, -0.3333333, 0.0, 0.3333333, 0.5, 0.6666667, 0.75, 0.8], [0.04, 0.125, 0.3333333, 1.0, 2.222222, 6.0, 3.111111, 2.0, 1.0, 0.625, 0.44]),
    'Tanhshrink' : ([-3.000656, -2.004944, -1.035972, -0.2384058, -0.03788283, 0.0, 0.03788283, 0.2384058, 1.035972, 2.004944, 3.000656], [0.9986889, 1.980272, 2.788048, 2.320103, 1.067761, 0.0, 1.494866, 4.640205, 8.364142, 9.901358, 10.98558]),
    'PReLU' : ([-0.2, -0.1636364, -0.2545455, -0.1818182, -0.1636364, -0.05454546, 0.1818182, 0.5454546, 0.9090909, 1.272727, 1.636364, 2.0], [0.0, 0.1, 0.4, 0.6, 1.2, 1.5, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [-1.636364, -5.272727, -3.090909]),
    'MaxPool1d_v' : ([1, 2, 3], [4.0, 5.0, 9.0, 6.0, 8.0, 9.0], [0.0, 0.0, 1.0, 0.0, 2.0, 3.0, 0.0, 4.0, 0.0, 0.0, 0.0, 5.0, 6.0, 0.0]),
    'MaxPool1d_s' : ([1, 2, 4], [3.0, 4.0, 9.0, 9.0, 6.0, 5.0, 9.0, 9.0], [1.0, 0.0, 2.0, 0.0, 0.0, 7.0, 0.0, 5.0, 6.0, 0.0, 0.0, 0.0, 15.0, 0.0]),
    'MaxPool1d_p' : ([1, 2, 4], [3.0, 4.0, 9.0, 9.0, 6.0, 5.0, 9.0, 9.0], [1.0, 0.0, 2.0, 0.0, 0.0, 7.0, 0.0, 5.0, 6.0, 0.0, 0.0, 0.0, 15.0, 0.0]),
    'MaxPool1d_c' : ([1, 2, 4], [3.0, 4.0, 9.0, 2.0, 6.0, 5.0, 9.0, 7.0], [1.0, 0.0, 2.0, 0.0, 0.0, 3.0, 4.0, 5.0, 0.0, 0.0, 6.0, 0.0, 7.0, 8.0]),
    'AvgPool1d_v' : ([1, 2, 3], [2.666667, 3.333333, 5.333333, 4.666667, 5.333333, 8.0], [0.3333333, 0.3333333, 1.0, 0.6666667, 1.666667, 1.0, 1.0, 1.333333, 1.333333, 3.0, 1.666667, 3.666667, 2.0, 2.0]),
    'AvgPool1d_s' : ([1, 2, 4], [2.0, 2.0, 5.0, 5.5, 5.5, 4.333333, 7.333333, 8.0], [0.5, 1.166667, 0.6666667, 1.666667, 1.0, 3.0, 2.0, 2.5, 4.5, 2.0, 4.333333, 2.333333, 6.333333, 4.0]),
    'AvgPool1d_p' : ([1, 2, 4], [1.333333, 2.0, 5.0, 3.666667, 3.666667, 4.333333, 7.333333, 5.333333], [0.3333333, 1.0, 0.6666667, 1.666667, 1.0, 2.333333, 1.333333, 1.666667, 3.666667, 2.0, 4.333333, 2.333333, 5.0, 2.666667]),
    'AvgPool1d_pn' : ([1, 2, 4], [2.0, 2.0, 5.0, 5.5, 5.5, 4.333333, 7.333333, 8.0], [0.5, 1.166667, 0.6666667, 1.666667, 1.0, 3.0, 2.0, 2.5, 4.5, 2.0, 4.333333, 2.333333, 6.333333, 4.0]),
    'AvgPool1d_c' : ([1, 2, 4], [2.0, 2.5, 7.0, 2.0, 5.5, 4.0, 8.5, 7.0], [0.5, 0.5, 1.0, 1.0, 1.5, 1.5, 4.0, 2.5, 2.5, 3.0, 3.0, 3.5, 3.5, 8.0]),
    'AdaptiveAvgPool2d' : ([1, 2, 2, 3], [0.5735804, -0.3153962, -0.3110781, -0.005131542, -0.525009, 0.4420932, -0.4822214, 0.4933113, 0.07164152, 0.2528665, 0.3691488, -0.5601068], [0.1111111, 0.1111111, 0.3333333, 0.2222222, 0.5555556, 0.3333333, 0.3333333, 0.1111111, 0.1111111, 0.3333333, 0.2222222, 0.5555556, 0.3333333, 0.3333333, 0.5555556, 0.5555556, 1.333333, 0.7777778, 1.777778, 1.0, 1.0, 0.4444444, 0.4444444, 1.0, 0.5555556, 1.222222, 0.6666667, 0.6666667, 0.4444444, 0.4444444, 1.0, 0.5555556, 1.222222, 0.6666667, 0.6666667, 0.7777778, 0.7777778, 1.666667, 0.8888889, 1.888889, 1.0, 1.0, 0.7777778, 0.7777778, 1.666667, 0.8888889, 1.888889, 1.0, 1.0, 1.888889, 1.888889, 4.0, 2.111111, 4.444445, 2.333333, 2.333333, 1.111111, 1.111111, 2.333333, 1.222222, 2.555556, 1.333333, 1.333333, 1.111111, 1.111111, 2.333333, 1.222222, 2.555556, 1.333333, 1.333333]),
    'AdaptiveMaxPool2d' : ([1, 2, 2, 3], [0.9906074, 0.9092974, 0.9129453, 0.9906074, 0.5514267, 0.9999118, 0.6702291, 0.9866276, 0.9637954, 0.9928727, 0.9928727, 0.3959251], [0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0, 6.0, 0.0, 0.0, 0.0, 0.0, 0.0, 9.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0, 8.0, 12.0, 0.0, 0.0, 0.0, 0.0, 21.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    'AdaptiveMaxPool2d_n' : ([1, 2, 5, 3], [0.9092974, 0.9092974, -0.2794155, 0.9893582, 0.4121185, 0.4201671, 0.9906074, -0.2879033, 0.9129453, 0.8366556, -0.1323518, 0.956376, 0.2709058, 0.5514267, 0.9999118, -0.4281827, 0.9637954, 0.9637954, 0.01770193, 0.9017884, 0.9017884, 0.6702291, 0.9866276, 0.3959251, 0.9928727, 0.9928727, -0.3048106, 0.9200261, 0.8268287, -0.1147848], [0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 3.0, 0.0, 4.0, 5.0, 0.0, 0.0, 0.0, 6.0, 7.0, 0.0, 8.0, 0.0, 0.0, 0.0, 9.0, 10.0, 0.0, 0.0, 0.0, 11.0, 0.0, 12.0, 13.0, 0.0, 0.0, 0.0, 14.0, 15.0, 0.0, 16.0, 0.0, 0.0, 0.0, 35.0, 0.0, 0.0, 0.0, 0.0, 19.0, 0.0, 41.0, 0.0, 0.0, 0.0, 0.0, 22.0, 23.0, 24.0, 0.0, 0.0, 0.0, 0.0, 51.0, 0.0, 27.0, 0.0, 0.0, 0.0, 28.0, 29.0, 0.0, 0.0, 0.0, 30.0]),
    'AdaptiveMaxPool2d_idx' : ([14, 2, 20, 14, 32, 33, 16, 17, 4, 23, 23, 18], 'Int64'),
    'MaxPool2d_c' : ([1, 2, 3, 3], [1.0, -0.5609846, 0.6475962, 0.9074468, -0.1612383, 0.9078191, 0.6469194, 0.05484188, 0.976778, 0.4677318, 0.4692991, 0.9999996, 0.05306854, 0.7968879, 0.9070745, -0.3714145, 0.9081907, 0.6462441], [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0, 6.0, 7.0, 0.0, 0.0, 8.0, 9.0, 10.0, 0.0, 0.0, 0.0, 12.0, 0.0, 0.0, 0.0, 11.0, 0.0, 13.0, 0.0, 0.0, 0.0, 15.0, 0.0, 0.0, 0.0, 14.0, 0.0, 16.0, 0.0, 0.0, 17.0, 18.0]),
    'MaxPool2d_cp' : ([1, 2, 3, 3], [1.0, 0.2674989, 0.6475962, 0.9765877, 0.0539557, 0.9078191, 0.7958149, 0.05484188, 0.976778, 0.4677318, 0.4692991, 0.9999996, 0.2666429, 0.7968879, 0.9763969, -0.1629908, 0.9081907, 0.9081907], [1.0, 2.0, 0.0, 0.0, 0.0, 4.0, 5.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0, 0.0, 0.0, 0.0, 6.0, 0.0, 0.0, 0.0, 8.0, 9.0, 10.0, 0.0, 0.0, 0.0, 12.0, 13.0, 0.0, 0.0, 11.0, 15.0, 0.0, 0.0, 0.0, 0.0, 0.0, 16.0, 0.0, 0.0, 14.0, 0.0, 0.0, 0.0, 0.0, 35.0, 0.0]),
    'MaxPool2d_c3' : ([1, 2, 2, 2], [1.0, 0.7963518, 0.7958149, 0.976778, 0.4677318, 0.9999996, -0.1603629, 0.9081907], [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4.0, 5.0, 0.0, 0.0, 0.0, 6.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0, 8.0, 0.0]),
    'max_pool2d_idx' : ([1.0, -0.5609846, 0.9074468, -0.1612383, 0.4677318, 0.4692991, 0.05306854, 0.7968879], [0, 8, 10, 18, 0, 8, 10, 18], 'Int64', [1, 2, 2, 2]),
    'max_pool2d_idx_cp' : ([1.0, 0.2674989, 0.6475962, 0.9765877, 0.0539557, 0.9078191, 0.7958149, 0.05484188, 0.976778, 0.4677318, 0.4692991, 0.9999996, 0.2666429, 0.7968879, 0.9763969, -0.1629908, 0.9081907, 0.9081907], [0, 1, 9, 5, 6, 19, 15, 23, 24, 0, 8, 4, 5, 18, 9, 15, 23, 23], [1, 2, 3, 3]),
    'MaxPool2d_idx' : ([0, 8, 10, 18, 0, 8, 10, 18],),
    'Up_n_size' : ([1, 1, 5, 7], [0.0, 0.0, 1.0, 1.0, 2.828427, 2.828427, 5.196153, 0.0, 0.0, 1.0, 1.0, 2.828427, 2.828427, 5.196153, 8.0, 8.0, 11.18034, 11.18034, 14.69694, 14.69694, 18.52026, 8.0, 8.0, 11.18034, 11.18034, 14.69694, 14.69694, 18.52026, 22.62742, 22.62742, 27.0, 27.0, 31.62278, 31.62278, 36.48287], [20.0, 28.0, 36.0, 21.0, 76.0, 84.0, 92.0, 49.0, 59.0, 63.0, 67.0, 35.0]),
    'Up_n_sf' : ('ERR', 'ValueError', "For 'interpolate', 'scale_factor' option cannot currently be set with the mode = nearest and dim = 4D."),
    'Up_bl' : ([1, 1, 5, 7], [0.0, 0.3571429, 0.9285715, 1.914214, 2.997551, 4.350537, 5.196153, 3.2, 3.86862, 4.938413, 6.323984, 7.786544, 9.472238, 10.52579, 8.0, 9.135836, 10.95317, 12.93864, 14.97003, 17.15479, 18.52026, 16.77645, 18.16777, 20.39388, 22.76229, 25.16997, 27.71019, 29.29783, 22.62742, 24.18905, 26.68767, 29.31139, 31.96993, 34.74712, 36.48287], [11.2, 16.3, 21.55714, 25.14286, 47.7, 54.9, 60.81427, 63.38572, 73.6, 81.3, 86.55713, 87.54287]),
    'Up_bl_ac' : ([1, 1, 5, 7], [0.0, 0.5, 1.0, 1.914214, 2.828427, 4.01229, 5.196153, 4.0, 5.045085, 6.09017, 7.426426, 8.762683, 10.31044, 11.85821, 8.0, 9.59017, 11.18034, 12.93864, 14.69694, 16.6086, 18.52026, 15.31371, 17.20194, 19.09017, 21.12501, 23.15986, 25.33071, 27.50156, 22.62742, 24.81371, 27.0, 29.31139, 31.62278, 34.05283, 36.48287], [8.25, 16.0, 22.0, 20.25, 46.0, 68.0, 76.0, 62.0, 60.75, 86.0, 92.0, 72.75]),
    'Up_bl_sf' : ('ERR', 'ValueError', "For 'interpolate', 'scale_factor' option cannot currently be set with the mode = bilinear and dim = 4D."),
    'Up_lin' : ([1, 2, 5], [1.0, 1.4, 2.0, 2.6, 3.0, 4.0, 4.4, 5.0, 5.6, 6.0]),
    'Up_lin_ac' : ([1, 2, 5], [1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 4.5, 5.0, 5.5, 6.0]),
    'Up_n1d' : ([1, 2, 5], [1.0, 1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 5.0, 5.0, 6.0]),
    'ZeroPad2d_i' : ([1, 1, 4, 5], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.0, 0.0, 4.0, 5.0, 6.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [7.0, 8.0, 9.0, 12.0, 13.0, 14.0]),
    'ZeroPad2d_t' : ([1, 1, 5, 4], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0, 0.0, 0.0, 0.0, 0.0], [10.0, 11.0, 12.0, 14.0, 15.0, 16.0]),
    'Huber_mean_1.0' : ([0.605], [0.03333334, -0.1666667, 0.1666667, -0.1666667, 0.01666667, 0.01666667]),
    'Huber_mean_0.5' : ([0.3675], [0.03333334, -0.08333334, 0.08333334, -0.08333334, 0.01666667, 0.01666667]),
    'Cos_mean_0.0' : ([0.9721743], [-0.03836326, -0.1594866, -0.07194997, 0.03047067, -0.04202847, 0.06566948], [-0.1080387, 0.5066641, -0.9593089, -0.007648125, 0.02048888, -0.03365168]),
    'MR_mean_0.0' : ([0.0], [-0.0, 0.0, -0.0, 0.0, -0.0, -0.0], [0.0, -0.0, 0.0, -0.0, 0.0, 0.0]),
    'Cos_mean_0.3' : ([0.8221743], [-0.03836326, -0.1594866, -0.07194997, 0.03047067, -0.04202847, 0.06566948], [-0.1080387, 0.5066641, -0.9593089, -0.007648125, 0.02048888, -0.03365168]),
    'MR_mean_0.3' : ([0.08333334], [-0.1666667, 0.0, -0.0, 0.0, -0.1666667, -0.1666667], [0.1666667, -0.0, 0.0, -0.0, 0.1666667, 0.1666667]),
    'Huber_sum_1.0' : ([3.63], [0.2, -1.0, 1.0, -1.0, 0.1, 0.09999999]),
    'Huber_sum_0.5' : ([2.205], [0.2, -0.5, 0.5, -0.5, 0.1, 0.09999999]),
    'Cos_sum_0.0' : ([1.944349], [-0.07672652, -0.3189732, -0.1438999, 0.06094134, -0.08405694, 0.131339], [-0.2160774, 1.013328, -1.918618, -0.01529625, 0.04097776, -0.06730335]),
    'MR_sum_0.0' : ([0.0], [-0.0, 0.0, -0.0, 0.0, -0.0, -0.0], [0.0, -0.0, 0.0, -0.0, 0.0, 0.0]),
    'Cos_sum_0.3' : ([1.644349], [-0.07672652, -0.3189732, -0.1438999, 0.06094134, -0.08405694, 0.131339], [-0.2160774, 1.013328, -1.918618, -0.01529625, 0.04097776, -0.06730335]),
    'MR_sum_0.3' : ([0.5], [-1.0, 0.0, -0.0, 0.0, -1.0, -1.0], [1.0, -0.0, 0.0, -0.0, 1.0, 1.0]),
    'Huber_none_1.0' : ([0.02, 1.1, 1.8, 0.7, 0.005, 0.004999999], [0.2, -1.0, 1.0, -1.0, 0.1, 0.09999999]),
    'Huber_none_0.5' : ([0.02, 0.675, 1.025, 0.475, 0.005, 0.004999999], [0.2, -0.5, 0.5, -0.5, 0.1, 0.09999999]),
    'Cos_none_0.0' : ([0.9608825, 0.9834661], [-0.07672652, -0.3189732, -0.1438999, 0.06094134, -0.08405694, 0.131339], [-0.2160774, 1.013328, -1.918618, -0.01529625, 0.04097776, -0.06730335]),
    'MR_none_0.0' : ([0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [-0.0, 0.0, -0.0, 0.0, -0.0, -0.0], [0.0, -0.0, 0.0, -0.0, 0.0, 0.0]),
    'Cos_none_0.3' : ([0.9608825, 0.6834661], [-0.07672652, -0.3189732, -0.1438999, 0.06094134, -0.08405694, 0.131339], [-0.2160774, 1.013328, -1.918618, -0.01529625, 0.04097776, -0.06730335]),
    'MR_none_0.3' : ([0.09999999, 0.0, 0.0, 0.0, 0.2, 0.2], [-1.0, 0.0, -0.0, 0.0, -1.0, -1.0], [1.0, -0.0, 0.0, -0.0, 1.0, 1.0]),
}


def T(a):
    return ms.Tensor(np.asarray(a, np.float32))


def weighted_grad(fn, *xs, pos=0):
    """The output and the gradient of ``sum(fn(*xs) * (1, 2, 3, ...))`` w.r.t. input ``pos``."""
    y = fn(*xs)
    w = T(np.arange(1, y.size + 1).reshape(y.shape))
    return y, ms.grad(lambda *a: ops.reduce_sum(ops.mul(fn(*a), w)), grad_position=pos)(*xs)


def close(got, want, rtol=2e-5):
    np.testing.assert_allclose(np.asarray(got.asnumpy() if hasattr(got, "asnumpy") else got).ravel(),
                               np.asarray(want.asnumpy() if hasattr(want, "asnumpy") else want, np.float64).ravel(),
                               rtol=rtol, atol=2e-6)


X_ACT = T([-4, -3, -2, -1, -0.5, 0, 0.5, 1, 2, 3, 4])


@pytest.mark.parametrize("name, cell", [("ELU", nn.ELU()), ("HSwish", nn.HSwish()), ("HSigmoid", nn.HSigmoid()),
                                        ("Mish", nn.Mish()), ("Hardtanh", nn.Hardtanh()),
                                        ("Hardtanh_m", nn.Hardtanh(-2.0, 3.0)), ("Softsign", nn.Softsign()),
                                        ("Tanhshrink", nn.Tanhshrink())])
def test_activation_forward_and_gradient(name, cell):
    y, g = weighted_grad(cell, X_ACT)
    close(y, MS[name][0])
    # MindSpore's Mish gradient kernel is off the exact derivative by up to 1e-4 (relative) at x = 4
    close(g, MS[name][1], 2e-4 if name == "Mish" else 5e-5)      # 1 - tanh(x)**2 rounds near 1
    assert y.dtype == ms.float32


def test_activations_by_name_and_errors():
    assert isinstance(nn.get_activation("hswish"), nn.HSwish)
    assert isinstance(nn.get_activation("prelu"), nn.PReLU)
    with pytest.raises(TypeError, match="HSwish: the input must be a float tensor, got int32"):
        nn.HSwish()(ms.Tensor(np.array([1, 2], np.int32)))
    with pytest.raises(ValueError, match="Hardtanh: min_val must be <= max_val, got 2.0 and 1.0"):
        nn.Hardtanh(2.0, 1.0)
    with pytest.raises(TypeError, match="ELU: alpha must be a float"):
        nn.ELU("1")


def test_elu_alpha_other_than_one():
    # MindSpore's CPU kernel refuses alpha != 1.0 ("In Elu, alpha must be 1.0f"); here any alpha works
    y = nn.ELU(0.5)(T([-1.0, 2.0])).asnumpy()
    np.testing.assert_allclose(y, [0.5 * (np.exp(-1.0) - 1.0), 2.0], rtol=1e-6)


def test_prelu_per_channel_values_gradients_and_names():
    p = nn.PReLU(channel=3, w=0.25)
    assert [(q.name, q.shape) for q in p.get_parameters()] == [("a", (3,))]     # MindSpore's name

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.act = nn.PReLU(3)

        def construct(self, x):
            return self.act(x)

    assert [(q.name, q.shape) for q in Net().get_parameters()] == [("act.w", (3,))]
    p.w.set_data(T([0.1, 0.2, 0.3]))
    x = T(np.linspace(-2, 2, 12).reshape(2, 3, 2))
    w = T(np.arange(12).reshape(2, 3, 2))
    gx, gw = ms.grad(lambda x: ops.reduce_sum(ops.mul(p(x), w)), grad_position=0, weights=p.trainable_params())(x)
    want = MS["PReLU"]
    close(p(x), want[0])
    close(gx, want[1])
    close(gw[0], want[2])
    with pytest.raises(ValueError, match="PReLU: the input's axis 1 must have 3 channels, got shape"):
        p(T(np.ones((2, 4))))
    with pytest.raises(ValueError, match="PReLU: w must have 3 values"):
        nn.PReLU(3, w=T([0.1, 0.2]))


X1 = T([[[3, 1, 4, 1, 5, 9, 2], [6, 5, 3, 5, 8, 9, 7]]])


@pytest.mark.parametrize("name, cell", [
    ("MaxPool1d_v", nn.MaxPool1d(3, 2)), ("MaxPool1d_s", nn.MaxPool1d(3, 2, pad_mode="same")),
    ("MaxPool1d_p", nn.MaxPool1d(3, 2, pad_mode="pad", padding=1)),
    ("MaxPool1d_c", nn.MaxPool1d(2, 2, pad_mode="pad", ceil_mode=True)),
    ("AvgPool1d_v", nn.AvgPool1d(3, 2)), ("AvgPool1d_s", nn.AvgPool1d(3, 2, pad_mode="same")),
    ("AvgPool1d_p", nn.AvgPool1d(3, 2, pad_mode="pad", padding=1)),
    ("AvgPool1d_pn", nn.AvgPool1d(3, 2, pad_mode="pad", padding=1, count_include_pad=False)),
    ("AvgPool1d_c", nn.AvgPool1d(2, 2, pad_mode="pad", ceil_mode=True))])
def test_pool1d(name, cell):
    y, g = weighted_grad(cell, X1)
    shape, fwd, grad = MS[name]
    assert list(y.shape) == shape
    close(y, fwd)
    close(g, grad)


def test_pool1d_unbatched_indices_and_errors():
    x = T(np.arange(14).reshape(2, 7))
    assert nn.MaxPool1d(3, 2)(x).shape == (2, 3) and nn.AvgPool1d(3, 2)(x).shape == (2, 3)
    y, i = nn.MaxPool1d(2, 2, pad_mode="pad", return_indices=True)(X1)
    assert i.dtype == ms.int64 and i.asnumpy().tolist() == [[[0, 2, 5], [0, 3, 5]]]
    with pytest.raises(ValueError, match="For MaxPool1d, the parameter 'padding', 'dilation', 'return_indices', "
                                         "'ceil_mode' can not be set to non-default value when pad_mode is not "
                                         "'pad', but got pad_mode:valid."):
        nn.MaxPool1d(2, 2, ceil_mode=True)
    with pytest.raises(ValueError, match="For 'MaxPool1d', the input must has 3 dim, but got 1"):
        nn.MaxPool1d(3, 2)(T(np.ones(7)))


X2 = T(np.sin(np.arange(70)).reshape(1, 2, 5, 7))


@pytest.mark.parametrize("name, cell", [("AdaptiveAvgPool2d", nn.AdaptiveAvgPool2d((2, 3))),
                                        ("AdaptiveMaxPool2d", nn.AdaptiveMaxPool2d((2, 3))),
                                        ("AdaptiveMaxPool2d_n", nn.AdaptiveMaxPool2d((None, 3)))])
def test_adaptive_pool2d(name, cell):
    y, g = weighted_grad(cell, X2)
    shape, fwd, grad = MS[name]
    assert list(y.shape) == shape
    close(y, fwd)
    close(g, grad)


def test_adaptive_max_pool2d_indices_and_second_order():
    y, i = nn.AdaptiveMaxPool2d((2, 3), return_indices=True)(X2)
    assert i.dtype == ms.int64 and i.asnumpy().ravel().tolist() == MS["AdaptiveMaxPool2d_idx"][0]
    y, i = ops.adaptive_max_pool2d(X2[0], 2, return_indices=True)          # unbatched (C, H, W)
    assert y.shape == (2, 2, 2) and i.asnumpy().tolist() == [[[14, 20], [14, 33]], [[17, 17], [23, 17]]]
    # the gradient of the gradient w.r.t. dy: routing dy to the maxima and reading w at them are transposes
    w = T(np.cos(np.arange(70)).reshape(1, 2, 5, 7))

    def routed(dy):
        g = ms.grad(lambda x: ops.reduce_sum(ops.mul(ops.adaptive_max_pool2d(x, (2, 3)), dy)))(X2)
        return ops.reduce_sum(ops.mul(g, w))

    got = ms.grad(routed)(T(np.arange(12).reshape(1, 2, 2, 3)))
    _, idx = ops.adaptive_max_pool2d(X2, (2, 3), return_indices=True)
    want = np.take_along_axis(w.asnumpy().reshape(1, 2, -1), idx.asnumpy().reshape(1, 2, -1), -1)
    np.testing.assert_allclose(got.asnumpy().ravel(), want.ravel(), rtol=1e-6)


X3 = T(np.cos(np.arange(50) * 1.3).reshape(1, 2, 5, 5))


@pytest.mark.parametrize("name, cell", [
    ("MaxPool2d_c", nn.MaxPool2d(2, 2, pad_mode="pad", ceil_mode=True)),
    ("MaxPool2d_cp", nn.MaxPool2d(3, 2, pad_mode="pad", padding=1, ceil_mode=True)),
    ("MaxPool2d_c3", nn.MaxPool2d(3, 3, pad_mode="pad", ceil_mode=True))])
def test_max_pool2d_ceil_mode(name, cell):
    y, g = weighted_grad(cell, X3)
    shape, fwd, grad = MS[name]
    assert list(y.shape) == shape
    close(y, fwd)
    close(g, grad)


def test_max_pool2d_return_indices():
    y, i = ops.max_pool2d(X3, 2, 2, return_indices=True)
    fwd, idx, dtype, shape = MS["max_pool2d_idx"]
    close(y, fwd)
    assert i.asnumpy().ravel().tolist() == idx and dtype == "Int64" and i.dtype == ms.int64 and list(i.shape) == shape
    y, i = ops.max_pool2d(X3, 3, 2, padding=1, return_indices=True, ceil_mode=True)
    fwd, idx, shape = MS["max_pool2d_idx_cp"]
    close(y, fwd)
    assert i.asnumpy().ravel().tolist() == idx and list(i.shape) == shape
    _, i = nn.MaxPool2d(2, 2, pad_mode="pad", return_indices=True)(X3)
    assert i.asnumpy().ravel().tolist() == MS["MaxPool2d_idx"][0]
    # the values output is differentiable, the indices are not
    g = ms.grad(lambda x: ops.reduce_sum(ops.max_pool2d(x, 2, 2, return_indices=True)[0]))(X3)
    assert g.asnumpy().sum() == 8.0
    with pytest.raises(ValueError, match="For MaxPool2d, the parameter 'padding', 'dilation', 'return_indices', "
                                         "'ceil_mode' can not be set"):
        nn.MaxPool2d(2, 2, return_indices=True)


X4 = T(np.arange(12).reshape(1, 1, 3, 4) ** 1.5)


@pytest.mark.parametrize("name, cell", [
    ("Up_n_size", nn.Upsample(size=(5, 7))), ("Up_bl", nn.Upsample(size=(5, 7), mode="bilinear")),
    ("Up_bl_ac", nn.Upsample(size=(5, 7), mode="bilinear", align_corners=True))])
def test_upsample_2d(name, cell):
    y, g = weighted_grad(cell, X4)
    shape, fwd, grad = MS[name]
    assert list(y.shape) == shape
    close(y, fwd)
    close(g, grad)


def test_upsample_1d_scale_factor_and_errors():
    x = T(np.arange(1, 7).reshape(1, 2, 3))
    for name, cell in [("Up_lin", nn.Upsample(size=5, mode="linear")),
                       ("Up_lin_ac", nn.Upsample(size=5, mode="linear", align_corners=True)),
                       ("Up_n1d", nn.Upsample(size=5, mode="nearest"))]:
        y = cell(x)
        assert list(y.shape) == MS[name][0]
        close(y, MS[name][1])
    # scale_factor needs recompute_scale_factor=True; the size is then floor(in * scale)
    y = nn.Upsample(scale_factor=2.0, recompute_scale_factor=True)(X4)
    close(y, nn.Upsample(size=(6, 8))(X4))
    y = nn.Upsample(scale_factor=(1.7, 1.5), mode="bilinear", recompute_scale_factor=True)(X4)
    close(y, [0.0, 0.5, 1.30474, 2.52369, 4.01229, 5.19615, 3.2, 4.13607, 5.48942, 7.15855, 9.05081, 10.5258, 8.0,
              9.59017, 11.76644, 14.11084, 16.6086, 18.52026, 16.77645, 18.7243, 21.36886, 24.15573, 27.07514,
              29.29783, 22.62742, 24.81371, 27.77046, 30.85232, 34.05282, 36.48287])
    close(nn.Upsample(size=(2, 3), mode="bilinear")(X4), [2.25751, 4.67032, 8.07191, 19.64965, 25.2182, 31.2254])
    errors = [(nn.Upsample(scale_factor=2.0), "'scale_factor' option cannot currently be set with the mode = "
                                              "nearest and dim = 4D."),
              (nn.Upsample(size=(5, 7), align_corners=True), "'align_corners' option cannot currently be set"),
              (nn.Upsample(size=(5, 7), scale_factor=2.0), "'size' and 'scale_factor' cannot be set simultaneously"),
              (nn.Upsample(), "'size' and 'scale_factor' cannot be both empty"),
              (nn.Upsample(size=(5, 7), mode="foo"), "'mode' must be in"),
              (nn.Upsample(size=(5, 7), mode="trilinear"), "For 'interpolate', trilinear only support"),
              (nn.Upsample(size=(2, 3), mode="area", align_corners=True),
               "'align_corners' option cannot currently be set with the mode = area, and dim = 4D"),
              (nn.Upsample(size=5, mode="linear"), "For 'interpolate', linear only support")]
    for cell, text in errors:
        with pytest.raises(ValueError, match=text.replace("(", r"\(").replace(")", r"\)")):
            cell(X4)


def test_zero_pad2d():
    x = T(np.arange(1, 7).reshape(1, 1, 2, 3))
    for name, cell in [("ZeroPad2d_i", nn.ZeroPad2d(1)), ("ZeroPad2d_t", nn.ZeroPad2d((1, 0, 2, 1)))]:
        y, g = weighted_grad(cell, x)
        shape, fwd, grad = MS[name]
        assert list(y.shape) == shape
        close(y, fwd)
        close(g, grad)
    assert nn.ZeroPad2d((1, 2))(X4).shape == (1, 1, 3, 7)
    close(nn.ZeroPad2d(-1)(X4), [11.18034, 14.69694])                 # negative amounts crop
    assert nn.ZeroPad2d(1)(x[0]).shape == (1, 4, 5)
    with pytest.raises(ValueError, match=r"ZeroPad2d: padding \(1, 1, 1, 1\) needs an input of at least 2 axes"):
        nn.ZeroPad2d(1)(T(np.ones(3)))
    with pytest.raises(TypeError, match="ZeroPad2d: padding must be an int or a tuple of 2 or 4 ints"):
        nn.ZeroPad2d((1, 2, 3))


A = T([[0.3, -1.2, 2.5], [1.0, 0.1, -0.4]])
B = T([[0.1, 0.4, 0.2], [2.2, 0.0, -0.5]])


@pytest.mark.parametrize("red", ["mean", "sum", "none"])
def test_losses(red):
    for d in (1.0, 0.5):
        c = nn.HuberLoss(red, d)
        g = ms.grad(lambda u, v: ops.reduce_sum(c(u, v)), grad_position=(0, 1))(A, B)
        close(c(A, B), MS[f"Huber_{red}_{d}"][0])
        close(g[0], MS[f"Huber_{red}_{d}"][1])
        close(g[1], -np.asarray(MS[f"Huber_{red}_{d}"][1]))
    t = ms.Tensor(np.array([1, -1], np.int32))
    t2 = T([[1, -1, 1], [-1, 1, 1]])
    for m in (0.0, 0.3):
        c = nn.CosineEmbeddingLoss(m, red)
        ga, gb = ms.grad(lambda u, v: ops.reduce_sum(c(u, v, t)), grad_position=(0, 1))(A, B)
        want = MS[f"Cos_{red}_{m}"]
        close(c(A, B, t), want[0])
        close(ga, want[1])
        close(gb, want[2])
        c = nn.MarginRankingLoss(m, red)
        ga, gb = ms.grad(lambda u, v: ops.reduce_sum(c(u, v, t2)), grad_position=(0, 1))(A, B)
        want = MS[f"MR_{red}_{m}"]
        close(c(A, B, t2), want[0])
        close(ga, want[1])
        close(gb, want[2])


def test_loss_broadcast_and_errors():
    x = T(np.arange(1, 7).reshape(1, 2, 3))
    close(nn.HuberLoss()(x, x[:, :1]), [1.25])                    # broadcasts, as MindSpore
    with pytest.raises(TypeError, match="For margin_ranking_loss, the target dtype should be equal to input1 "
                                        "dtype, but got target dtype:Int32, input1 dtype:Float32."):
        nn.MarginRankingLoss()(x, x, ms.Tensor(np.ones((1, 2, 3), np.int32)))
    with pytest.raises(ValueError, match=r"For 'CosineEmbeddingLoss', the 'margin' must be in \[-1.0, 1.0\]"):
        nn.CosineEmbeddingLoss(2.0)
    with pytest.raises(TypeError, match="For 'MarginRankingLoss', the 'margin' must be a float, got int"):
        nn.MarginRankingLoss(1)


def test_numeric_gradients_of_the_new_ops():
    rng = np.random.default_rng(3)
    x = ms.Tensor(rng.normal(size=(1, 2, 5, 6)))                       # float64: no ties, exact numerics
    check_grad(lambda x: ops.avg_pool2d(x, 2, 2, ceil_mode=True), x)
    check_grad(lambda x: ops.avg_pool2d(x, 3, 2, padding=1, ceil_mode=True, count_include_pad=False), x)
    check_grad(lambda x: ops.max_pool2d(x, 3, 2, padding=1, ceil_mode=True), x)
    check_grad(lambda x: ops.adaptive_max_pool2d(x, (2, 4)), x)
    check_grad(nn.Upsample(size=(7, 9), mode="bilinear", align_corners=True), x)
    check_grad(nn.ZeroPad2d((1, -1, 2, 0)), x)
    for cell in (nn.ELU(), nn.HSwish(), nn.Mish(), nn.Softsign(), nn.Tanhshrink(), nn.Hardtanh(-0.7, 0.9)):
        check_grad(cell, ms.Tensor(rng.normal(size=(7,)) * 2))
    a, b = ms.Tensor(rng.normal(size=(3, 4))), ms.Tensor(rng.normal(size=(3, 4)))
    check_grad(lambda a, b: nn.CosineEmbeddingLoss(0.1)(a, b, ms.Tensor(np.array([1, -1, -1], np.int32))), a, b)
    check_grad(lambda a, b: nn.HuberLoss(delta=0.5)(a, b), a, b)


def test_upsample_area_is_adaptive_average_pooling():
    # MindSpore 2.10's outputs for mode="area"
    close(nn.Upsample(size=(2, 3), mode="area")(X4), [5.045085, 7.426426, 10.31044, 17.20194, 21.12501, 25.33071])
    y = nn.Upsample(size=(5, 7), mode="area")(X4)
    close(y, MS["Up_bl_ac"][1])             # enlarging 3x4 to 5x7 by adaptive bins gives these same values
    x = T(np.arange(1, 7).reshape(1, 2, 3))
    close(nn.Upsample(size=3, mode="area")(x), np.arange(1, 7))
    with pytest.raises(ValueError, match="For adaptive_avg_pool1d input's last dimension must be divisible by "
                                         "output size 2, but got 3."):
        nn.Upsample(size=2, mode="area")(x)
    with pytest.raises(ValueError, match="must be greater or equal to output size 6, but got 3."):
        nn.Upsample(size=6, mode="area")(x)


def test_avg_pool_ceil_mode_in_every_pad_mode():
    # MindSpore 2.10: ceil_mode applies in "valid" and "same" too; "same" padding counts in the divisor
    # only with ceil_mode and count_include_pad
    x = T(np.arange(36).reshape(1, 1, 6, 6))
    close(nn.AvgPool2d(3, 2, pad_mode="valid", ceil_mode=True)(x)[..., 0, :], [7.0, 9.0, 10.5])
    close(nn.AvgPool2d(3, 2, pad_mode="same", ceil_mode=True)(x),
          [7.0, 9.0, 7.0, 19.0, 21.0, 15.0, 18.666666, 20.0, 14.0])
    for cip, ceil in ((True, False), (False, True), (False, False)):
        close(nn.AvgPool2d(3, 2, pad_mode="same", ceil_mode=ceil, count_include_pad=cip)(x),
              [7.0, 9.0, 10.5, 19.0, 21.0, 22.5, 28.0, 30.0, 31.5])
    x5 = T(np.arange(25).reshape(1, 1, 5, 5))
    close(nn.AvgPool2d(2, 2, pad_mode="same", ceil_mode=True)(x5), [3.0, 5.0, 3.25, 13.0, 15.0, 8.25, 10.25, 11.25, 6.0])
    assert nn.AvgPool2d(2, 2, ceil_mode=True)(x5).shape == (1, 1, 3, 3)
    close(nn.AvgPool1d(3, 2, ceil_mode=True)(x[0])[0, 0], [1.0, 3.0, 4.5])
