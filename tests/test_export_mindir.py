"""ms.export(..., file_format="MINDIR"): files that real MindSpore 2.10 loads and runs with mscustom's outputs.

The networks are those of ``mindir_cases.py`` (fixed weights and inputs).
``bench/check_mindir.py``, run with MindSpore 2.10's interpreter, exported
each with mscustom, loaded the file with ``mindspore.load``, ran it with
``nn.GraphCell`` and printed what MindSpore returned (``MS_OUTPUTS``) and the
structure of the file it ran, parsed with MindSpore's own schema
(``STRUCTURE``, see ``mindir_summary.py``). These tests need no MindSpore:
they check that the file mscustom writes today has that structure and holds
the network's weights, and that mscustom's outputs equal MindSpore's. After a
change to the exporter, rerun the bench script and paste its ``--print``
output here.
"""

import os

import numpy as np
import pytest

import mindir_cases
import mscustom as ms
from mindir_summary import summary
from mscustom import nn, ops
from mscustom.train import _mindir_proto as pb

# printed by: /path/to/venv-ms/bin/python bench/check_mindir.py --print   (MindSpore 2.10.0, CPU)
MS_OUTPUTS = {
    "dense_relu": [
        ([2, 3], "float32", [
            1.0523374, 0.97453439, 0.0, 0.0, 0.0, 0.7542541]),
    ],
    "activations": [
        ([12, 2, 6], "float32", [
            2.1709428, 2.7732134, 0.0, 0.37164983, 2.7380145, 0.0, 2.7914693, 0.0, 0.49685144,
            3.1361361, 0.0, 0.0, 0.89760971, 0.9412111, 0.30992225, 0.59185791, 0.93923289,
            0.35671562, 0.94221312, 0.33040854, 0.62171918, 0.95835906, 0.4792493, 0.14194633,
            0.97431028, 0.99222797, -0.66430646, 0.35543394, 0.99166334, -0.52964228, 0.99250567,
            -0.60837519, 0.4596374, 0.99623269, -0.082860075, -0.94672495, 2.1386919, 2.7659872,
            -0.16955881, 0.2396799, 2.7300255, -0.16378407, 2.7846138, -0.16957027, 0.34298608,
            3.1338181, -0.038776763, -0.064824097, 2.1384487, 2.7655168, -0.16947466, 0.2396856,
            2.7295525, -0.16375309, 2.7841461, -0.16951333, 0.34300295, 3.1334517, -0.038776748,
            -0.06475766, 1.9486593, 2.6101792, -0.24808738, 0.21996389, 2.5716333, -0.2103366,
            2.6301591, -0.23338, 0.30890208, 3.0055444, -0.039801888, -0.25539237, 2.1709428,
            2.7732134, -0.16009653, 0.37164983, 2.7380145, -0.11792957, 2.7914693, -0.14126754,
            0.49685144, 3.1361361, -0.016610099, -0.35984358, 2.1709428, 2.7732134, -0.55088794,
            0.37164983, 2.7380145, -0.44547755, 2.7914693, -0.50655204, 0.49685144, 3.1361361,
            -0.079695344, -0.83457196, 2.1709428, 2.7732134, 0.0, 0.37164983, 2.7380145, 0.0,
            2.7914693, 0.0, 0.49685144, 3.1361361, 0.0, 0.0, 1.8709701, 2.6683922, -0.29344589,
            0.20884551, 2.6184609, -0.23687649, 2.6944516, -0.2700167, 0.28956929, 3.1361361,
            -0.04037568, -0.3600781, 0.8618238, 0.96220219, 0.36658621, 0.56194162, 0.95633578,
            0.40172535, 0.96524489, 0.38227704, 0.58280855, 1.0, 0.48615825, 0.20013034,
            0.68463635, 0.73497391, -0.44459337, 0.27095094, 0.73247832, -0.37092987, 0.73624998,
            -0.41394952, 0.33193102, 0.75822848, -0.076682009, -0.64275736]),
        ([2, 6], "float32", [
            0.20537011, 0.37505946, 0.01052115, 0.033971377, 0.3620874, 0.012990555, 0.38326257,
            0.011598947, 0.038632926, 0.54098427, 0.021632623, 0.0038885437]),
        ([2, 6], "float32", [
            -1.5829396, -0.98066902, -4.5543652, -3.3822327, -1.0158679, -4.3435302, -0.95903301,
            -4.45684, -3.2536509, -0.61436629, -3.8335528, -5.5497208]),
    ],
    "conv2d_bn_pool": [
        ([2, 3], "float32", [
            -0.025477618, -0.53994989, -0.53652, -0.025477618, -0.53994989, -0.53652]),
    ],
    "pool_padding": [
        ([1, 3, 3, 3], "float32", [
            0.37507474, 0.37507474, 0.33604977, 0.37507474, 0.37507474, 0.26158828, -0.11795604,
            0.26608962, 0.19807982, 0.28175184, 0.38829246, 0.38829246, 0.39353263, 0.39353263,
            0.38829246, 0.39353263, 0.39353263, 0.13444924, 0.10587215, 0.24166194, 0.11656941,
            0.24458838, 0.24458838, 0.28375536, 0.14571346, 0.10724546, 0.28375536]),
        ([1, 3, 3, 3], "float32", [
            0.057881761, -0.025645547, 0.071946487, 0.0073726727, -0.01002115, 0.039751619,
            -0.21847406, 0.048392452, -0.079009056, 0.053657167, -0.027936503, 0.095109984,
            -0.036257099, 0.012156586, -0.030487094, 0.17097265, 0.010169923, -0.14224693,
            -0.086752862, 0.040677231, -0.12312195, 0.012136048, 0.0034800929, -0.023347551,
            0.12647946, -0.053864583, 0.15554731]),
        ([1, 3, 2, 3], "float32", [
            0.057881761, -0.067868695, 0.13861629, -0.08767584, 0.10086697, -0.076337464,
            0.053657167, -0.043255918, 0.12312083, -0.020546824, 0.022717804, -0.14255626,
            -0.086752869, 0.091143221, -0.20486344, 0.098731384, -0.11309067, 0.15304217]),
    ],
    "conv1d_bn": [
        ([2, 2], "float32", [
            0.59392923, -0.05519481, 0.63614643, -0.098039106]),
    ],
    "embedding_layernorm": [
        ([2, 3, 3], "float32", [
            -0.0094387233, -1.0177858, 0.12890691, 0.019734055, -1.0235161, 0.10666263,
            -0.095163316, -0.97199225, 0.1592623, -0.32508332, -0.34374535, -0.37043384,
            0.064669818, -1.0178928, 0.054927886, -0.15411617, -0.35639766, -0.52610302]),
    ],
    "recurrent": [
        ([2, 2], "float32", [
            -0.2484996, -0.38940692, -0.26825303, -0.3702468]),
        ([8, 2, 2], "float32", [
            -0.057988387, -0.029716792, -0.22912443, -0.079573423, -0.15168214, -0.089128077,
            -0.11898618, -0.14790361, -0.043216269, -0.14260732, -0.0070099575, -0.15677445,
            -0.01017507, -0.055918619, -0.049336068, -0.015617465, -0.12903291, -0.079881184,
            -0.43718535, -0.24175882, -0.36031979, -0.34232789, -0.23439302, -0.37201244,
            -0.082460374, -0.30202565, -0.012722692, -0.35023704, -0.016970834, -0.11899102,
            -0.087720327, -0.030907113]),
        ([2, 4], "float32", [
            0.73578435, 0.87135851, 0.87391233, 1.180943, 0.3366397, 0.39949217, 0.61949193,
            0.86621642]),
        ([2, 2, 2], "float32", [
            0.97757548, 1.9415457, 0.81444961, 0.33577555, 1.4984329, 2.1648121, 0.69057566,
            0.9248246]),
        ([1, 2, 2], "float32", [
            1.7591927, 1.8454856, 0.79309028, 1.6984971]),
    ],
    "recurrent_lengths": [
        ([4, 3, 3], "float32", [
            0.0075142593, 0.038953159, 0.001966198, 0.15249704, 0.1099382, 0.10215939,
            -0.04925121, -0.031280927, -0.052465409, 0.11476725, -0.0025194751, 0.010492321,
            0.069567144, 0.091309056, 0.12966563, 0.0046656774, -0.060439207, 0.096960679,
            0.1054464, 0.074419096, -0.082210168, 0.0, 0.0, 0.0, 0.10938802, -0.020418076,
            0.0033302321, 0.0091645811, 0.057641387, -0.26894724, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ([2, 3, 4], "float32", [
            0.77198851, -0.045351654, 0.04009407, 0.34461576, 0.10108133, -0.1534418, 0.28940913,
            0.41225964, 0.74752963, 0.45644131, 0.34060541, -0.056234799, 0.0054734284,
            -0.072755739, -0.013383069, -0.23123866, 0.4802317, 0.39335373, -0.174233,
            -0.93496591, -0.14194286, -0.15196148, 0.029417412, 0.02661402]),
        ([3, 3, 6], "float32", [
            0.14845699, 0.2214641, 0.32075691, 0.13263625, 0.29150867, 0.42401475, 0.53833187,
            0.28772685, 0.17089161, 0.19109666, 0.17479405, 0.16295272, 0.30747283, 0.27135563,
            0.46458167, 0.039174788, 0.35163563, 0.4005163, 0.30443585, 0.24651699, 0.26286075,
            0.13504377, 0.28747591, 0.19508755, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.0, 0.46146739, 0.23824783, 0.15368915, 0.19151174, 0.17445886, 0.16479433,
            0.2464633, 0.23633689, 0.46208078, 0.035526767, 0.34905252, 0.40364558, 0.0, 0.0, 0.0,
            0.0, 0.0, 0.0]),
        ([2, 3, 3], "float32", [
            0.30747283, 0.27135563, 0.46458167, 0.30443585, 0.24651699, 0.26286075, 0.2464633,
            0.23633689, 0.46208078, 0.23799044, 0.22207645, 0.21661755, 0.18829209, 0.12469998,
            0.026766807, 0.13264303, 0.28096008, 0.41272876]),
    ],
    "more_layers": [
        ([1, 3, 2, 3], "float32", [
            -0.5, -0.4585889, -0.47282279, -0.35697046, -0.5, -0.5, -0.1982813, -0.28230867,
            -0.29950327, -0.39872304, -0.1444914, -0.18957752, -0.43739125, -0.36089405,
            -0.3128795, -0.2338039, -0.48775238, -0.41635787]),
        ([1, 3, 2, 2], "float32", [
            0.21645051, 0.012986094, 0.0035719723, -0.00011643022, 0.62471604, 0.043756634,
            0.042004734, 0.043798178, 0.23635352, 0.046178132, 0.023873985, 0.0042940527]),
        ([1, 3, 6], "float32", [
            -0.5159955, -0.36182848, -0.3283323, -0.36954901, -0.38364181, -0.43307096,
            -0.14304057, -0.28615183, -0.34085304, -0.31479809, -0.2477676, -0.14063016,
            -0.28374517, -0.24683529, -0.30155224, -0.32360703, -0.33034274, -0.33132708]),
        ([1, 3, 3], "float32", [
            -0.3871232, -0.3245196, -0.2179938, -0.22027421, -0.08462967, 0.062469114, 0.39912865,
            0.36257616, 0.27695072]),
        ([3, 3], "float32", [
            0.32078645, 0.31927809, 0.32078645, 0.39154935, 0.44741926, 0.39154935, 0.28766418,
            0.23330262, 0.28766418]),
    ],
    "resample": [
        ([1, 1, 5, 7], "float32", [
            0.71735609, 0.85451043, 0.99166483, 0.75358307, 0.51550138, 0.082359076, -0.35078323,
            -0.11712301, -0.018712163, 0.079698682, 0.14795232, 0.21620598, 0.20264944, 0.1890929,
            -0.9516021, -0.89193475, -0.83226746, -0.45767844, -0.083089404, 0.32293981,
            0.72896904, 0.018878073, -0.073372602, -0.16562331, -0.19520378, -0.22478427,
            -0.16930863, -0.11383298, 0.98935825, 0.74518955, 0.50102085, 0.06727086, -0.36647913,
            -0.66155708, -0.956635]),
        ([1, 1, 4, 3], "float32", [
            0.84268206, 0.89413071, -0.30430964, -0.44422331, -0.046421714, 0.41627192,
            -0.36028194, -0.3795234, 0.13176399, 1.0418823, 0.10365137, -0.9794718]),
        ([1, 1, 4, 8], "float32", [
            0.71735609, 0.71735609, 0.99166483, 0.99166483, 0.51550138, 0.51550138, -0.35078323,
            -0.35078323, 0.71735609, 0.71735609, 0.99166483, 0.99166483, 0.51550138, 0.51550138,
            -0.35078323, -0.35078323, -0.9516021, -0.9516021, -0.83226746, -0.83226746,
            -0.083089404, -0.083089404, 0.72896904, 0.72896904, 0.98935825, 0.98935825,
            0.50102085, 0.50102085, -0.36647913, -0.36647913, -0.956635, -0.956635]),
        ([1, 1, 2, 2], "float32", [
            -0.018712163, 0.20264944, -0.073372617, -0.16930863]),
        ([1, 1, 4, 7], "float32", [
            0.99166483, 0.71735609, 0.99166483, 0.51550138, -0.35078323, 0.51550138, 0.99166483,
            -0.83226746, -0.9516021, -0.83226746, -0.083089404, 0.72896904, -0.083089404,
            -0.83226746, 0.50102085, 0.98935825, 0.50102085, -0.36647913, -0.956635, -0.36647913,
            0.50102085, -0.83226746, -0.9516021, -0.83226746, -0.083089404, 0.72896904,
            -0.083089404, -0.83226746]),
        ([1, 1, 3, 7], "float32", [
            0.5, 0.5, 0.71735609, 0.99166483, 0.51550138, -0.35078323, 0.5, 0.5, 0.5, -0.9516021,
            -0.83226746, -0.083089404, 0.72896904, 0.5, 0.5, 0.5, 0.98935825, 0.50102085,
            -0.36647913, -0.956635, 0.5]),
        ([1, 1, 5, 6], "float32", [
            0.71735609, 0.71735609, 0.99166483, 0.51550138, -0.35078323, -0.35078323, 0.71735609,
            0.71735609, 0.99166483, 0.51550138, -0.35078323, -0.35078323, 0.71735609, 0.71735609,
            0.99166483, 0.51550138, -0.35078323, -0.35078323, -0.9516021, -0.9516021, -0.83226746,
            -0.083089404, 0.72896904, 0.72896904, 0.98935825, 0.98935825, 0.50102085, -0.36647913,
            -0.956635, -0.956635]),
        ([2, 1, 12], "float32", [
            0.71735609, 0.99166483, 0.51550138, -0.35078323, 0.71735609, 0.99166483, 0.51550138,
            -0.35078323, 0.71735609, 0.99166483, 0.51550138, -0.35078323, 0.71735609, 0.99166483,
            0.51550138, -0.35078323, 0.71735609, 0.99166483, 0.51550138, -0.35078323, 0.71735609,
            0.99166483, 0.51550138, -0.35078323]),
    ],
    "transformer": [
        ([3, 2, 8], "float32", [
            -0.2923755, -0.60255921, 0.10267022, -0.6364913, 0.59058142, -0.53013217, 1.0019455,
            -0.41093376, -0.022535712, -0.81557477, 0.25185654, -0.71694231, 0.5996514,
            -0.46752292, 0.86971587, -0.21343228, -0.26336461, -0.6274761, 0.12267372,
            -0.65092361, 0.59896785, -0.532197, 0.99762076, -0.40036175, -0.13234925, -0.73174673,
            0.19677082, -0.69241023, 0.60647994, -0.50548744, 0.93756789, -0.30894038,
            -0.19320515, -0.7027052, 0.20049855, -0.7287848, 0.67430502, -0.60253263, 1.0606418,
            -0.45399573, -0.11949757, -0.7250675, 0.17078021, -0.64796317, 0.54503787,
            -0.42907089, 0.84868997, -0.21052387]),
        ([2, 3, 4], "float32", [
            0.13639344, 0.24107623, 0.50540364, 0.11712665, 0.15848708, 0.11616199, 0.43615207,
            0.28919882, 0.29869872, 0.20894593, 0.35912374, 0.13323168, 0.16768302, 0.26769584,
            0.20394185, 0.36067927, 0.10925284, 0.10629659, 0.13784555, 0.64660501, 0.28074032,
            0.25115445, 0.15635079, 0.31175441]),
        ([2, 4, 3], "float32", [
            0.21193647, 0.14557961, -0.084147215, 0.27326161, 0.16740182, -0.08818607, 0.17582019,
            0.023028038, -0.12855801, -0.049310051, -0.16563021, -0.16715033, -0.13940337,
            -0.16093379, -0.14424717, -0.053847976, -0.047782458, -0.10737693, 0.10124259,
            0.069121309, -0.086699307, 0.22633331, 0.14709315, -0.082005203]),
        ([3, 2, 3], "float32", [
            -1.4199703, 0.7176646, -1.2215885, -1.1093843, 1.7855513, -0.3269771, -0.11545646,
            2.7652881, -0.066206485, 0.68011695, 3.015543, -0.72169232, 0.77368331, 2.2561378,
            -1.6883839, -0.064493775, 1.2443564, -2.3568363]),
    ],
    "passthrough": [
        ([1, 2, 3, 5], "float32", [
            0.56464249, 0.997495, 0.6754632, -0.15774569, -0.87157577, -0.92581469, -0.27941549,
            0.57843977, 0.99854332, 0.66296923, -0.17432678, -0.87969577, -0.91932851,
            -0.26323178, 0.5920735, 0.99930936, 0.65028787, -0.19085859, -0.88756704, -0.91258246,
            -0.24697366, 0.60553986, 0.99979287, 0.63742262, -0.20733643, -0.89518738,
            -0.90557837, -0.2306457, 0.61883503, 0.99999374]),
        ([5, 2], "float32", [
            0.11820808, 0.2483944, 0.3449617, 0.39484003, 0.39127865, 0.3347595, 0.23293225,
            0.099578716, -0.047252342, -0.18768802]),
        ([3, 2], "float32", [
            0.29770935, 0.20715201, 0.46316978, 0.64323443, 0.57789397, 0.49441874]),
        ([1, 2, 2, 2], "float32", [
            0.997495, 0.99854332, 0.57843977, 0.99854332, 0.99979287, 0.99979287, 0.99979287,
            0.99999374]),
        ([1, 2, 2, 2], "int64", [
            1, 8, 7, 8, 7, 7, 7, 14]),
    ],
    "more_math": [
        ([2, 5], "float32", [
            0.19720764, 0.52287424, 0.42780986, 0.020793326, -0.39756009, -0.53496438,
            -0.23657191, 0.20523588, 0.52565432, 0.42190185]),
        ([2, 5], "float32", [
            1.0, 2.0, 2.0, 0.0, -2.0, -2.0, -1.0, 1.0, 2.0, 2.0]),
        ([2, 5], "float32", [
            0.58182514, 0.1729843, 0.25287813, 0.95310825, 1.7155069, 1.8352882, 1.4888492,
            0.5669533, 0.1710477, 0.25880027]),
        ([2, 5], "float32", [
            0.4761219, 1.621006, 1.2445307, 0.042457223, -0.53083581, -0.62560827, -0.37161493,
            0.49907744, 1.6324623, 1.2221766]),
        ([2, 5], "float32", [
            1.1832277, 3.8542328, 3.2339857, 0.087771863, 0.0, 0.0, -0.35359052, 1.2467757,
            3.8716786, 3.1939485]),
        ([2, 5], "float32", [
            0.28020251, 0.82699639, 0.66821748, 0.025500372, -0.27757749, -0.30230784, -0.2101398,
            0.29309601, 0.83154279, 0.65818536]),
        ([2, 5], "float32", [
            0.40916225, 1.0124116, 0.84948802, 0.043688845, -0.93326205, -1.0998814, -0.65333599,
            0.42537621, 1.0169941, 0.83897126]),
        ([2, 5], "float32", [
            0.38941833, 0.9635582, 0.80849642, 0.041580662, -0.2654179, -0.31280413, -0.18580747,
            0.40484992, 0.96791965, 0.79848713]),
        ([2, 5], "float32", [
            0.90669262, 1.2867515, 1.1769707, 0.71415335, 0.38469365, 0.31801096, 0.48758861,
            0.91592103, 1.2899106, 1.1700572]),
        ([2, 3], "int32", [
            2, -2, 1, -1, 0, 3]),
        ([2, 3], "int32", [
            1, 1, 0, 2, 0, 2]),
        ([2, 5], "float32", [
            1.0, 3.0, 2.0, 0.0, -3.0, -4.0, -2.0, 1.0, 3.0, 2.0]),
        ([2, 5], "bool", [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        ([2, 5], "bool", [
            1, 1, 1, 0, 0, 0, 0, 1, 1, 1]),
        ([2], "float32", [
            12.310925, 5.7901683]),
        ([5], "bool", [
            0, 0, 1, 0, 0]),
        ([2, 1], "bool", [
            1, 1]),
    ],
    "elementwise": [
        ([2, 3], "float32", [
            3.0, 3.0, 2.0, -1.0, -2.0, -2.0]),
        ([2, 3], "float32", [
            2.0, 2.0, 1.0, -2.0, -3.0, -3.0]),
        ([2, 3], "float32", [
            0.70564067, 0.82705468, 0.41448778, -0.42821848, -0.82911909, -0.69811726]),
        ([2, 3], "float32", [
            0.70856982, 0.56212151, 0.91005486, 0.90367526, 0.55907208, 0.71598345]),
        ([2, 3], "float32", [
            0.57848066, 0.67998475, 0.35584047, 0.36639184, 0.68184865, 0.57254016]),
        ([2, 3], "float32", [
            0.35928228, 0.3362647, 0.41196683, 0.64206296, 0.97802395, 0.81483948]),
        ([2, 3], "float32", [
            0.59940159, 0.57988334, 0.64184642, 0.80128831, 0.98895091, 0.90268457]),
        ([2, 3], "float32", [
            1.0, 1.0, 1.0, -1.0, -1.0, -1.0]),
        ([2, 3], "float32", [
            0.78332692, 0.97384763, 0.42737988, 0.1, 0.1, 0.1]),
        ([2], "float32", [
            0.42737988, -0.97753012]),
        ([2, 3], "bool", [
            0, 0, 1, 0, 0, 0]),
        ([2, 3], "bool", [
            1, 1, 1, 1, 1, 1]),
        ([2, 3], "bool", [
            0, 0, 0, 1, 1, 1]),
        ([2, 3], "bool", [
            1, 0, 1, 1, 1, 1]),
    ],
    "tensor_ops": [
        ([2, 2], "float32", [
            -0.55682838, -0.54691356, -0.33669043, -0.31510234]),
        ([2, 4], "float64", [
            0.97882974, 0.53139586, 0.006903849, 0.69266913, 0.0024537796, 0.66122454, 0.92428509,
            0.14597856]),
        ([2, 3, 1], "float32", [
            -0.50208378, 0.15880947, -1.0, 0.16520648, -0.76238394, -0.066129968]),
        ([7], "float32", [
            0.99582368, 0.97550094, 0.85379684, 0.60537517, 0.61811924, 0.22256604, 0.68675977]),
        ([2, 2, 4], "float32", [
            0.50102085, -0.36647913, -0.956635, -0.82282859, 0.99166483, 0.51550138, -0.35078323,
            -0.9516021, 0.75157344, 0.98390669, 0.47163901, -0.39755568, -0.066321895, 0.74037588,
            0.98677194, 0.4863987]),
    ],
}
STRUCTURE = {
    "dense_relu": {
        "inputs": [([2, 4], 1)],
        "params": [('layers.0.weight', [3, 4], 1), ('layers.0.bias', [3], 1)],
        "ops": {'BiasAdd': 1, 'Constant': 3, 'MatMul': 1, 'ReLU': 1},
        "output": [([2, 3], 1)],
    },
    "activations": {
        "inputs": [([2, 5], 1)],
        "params": [('fc.weight', [6, 5], 1), ('fc.bias', [6], 1)],
        "ops": {'Abs': 1, 'Add': 6, 'BiasAdd': 1, 'Concat': 1, 'Constant': 16, 'Erf': 1, 'Exp': 1, 'Greater':
            3, 'GreaterEqual': 1, 'Less': 1, 'LessEqual': 1, 'LogSoftmax': 1, 'MakeTuple': 2, 'MatMul': 1,
            'Minimum': 1, 'Mul': 13, 'OnesLike': 1, 'ReLU': 2, 'RealDiv': 3, 'Reshape': 12, 'Select': 6,
            'Sigmoid': 2, 'Softmax': 1, 'Square': 1, 'Sub': 1, 'Tanh': 2, 'ZerosLike': 2},
        "output": 'tuple',
    },
    "conv2d_bn_pool": {
        "inputs": [([2, 3, 8, 8], 1)],
        "params": [('layers.0.weight', [4, 3, 3, 3], 1), ('layers.0.bias', [4], 1), ('layers.1.moving_mean',
            [4], 1), ('layers.1.moving_variance', [4], 1), ('layers.1.gamma', [4], 1), ('layers.1.beta', [4],
            1), ('layers.4.weight', [5, 4, 3, 3], 1), ('layers.5.moving_mean', [5], 1),
            ('layers.5.moving_variance', [5], 1), ('layers.5.gamma', [5], 1), ('layers.5.beta', [5], 1),
            ('layers.9.weight', [3, 5], 1), ('layers.9.bias', [3], 1)],
        "ops": {'Add': 4, 'AvgPool': 1, 'BiasAdd': 2, 'Constant': 10, 'Conv2D': 2, 'MatMul': 1, 'MaxPool': 1,
            'Mul': 2, 'ReLU': 1, 'RealDiv': 2, 'Reshape': 9, 'Sqrt': 2, 'Sub': 2, 'Tanh': 1},
        "output": [([2, 3], 1)],
    },
    "pool_padding": {
        "inputs": [([1, 2, 7, 9], 1)],
        "params": [('conv.weight', [3, 2, 3, 2], 1)],
        "ops": {'AvgPool': 2, 'Concat': 5, 'Constant': 14, 'Conv2D': 1, 'MakeTuple': 6, 'MaxPool': 1, 'Mul':
            2},
        "output": 'tuple',
    },
    "conv1d_bn": {
        "inputs": [([2, 3, 8], 1)],
        "params": [('layers.0.weight', [4, 3, 1, 3], 1), ('layers.0.bias', [4], 1), ('layers.1.moving_mean',
            [4], 1), ('layers.1.moving_variance', [4], 1), ('layers.1.gamma', [4], 1), ('layers.1.beta', [4],
            1), ('layers.4.weight', [2, 4, 1, 2], 1), ('layers.4.bias', [2], 1), ('layers.6.weight', [2, 8],
            1), ('layers.6.bias', [2], 1)],
        "ops": {'Add': 4, 'BiasAdd': 1, 'Constant': 15, 'Conv2D': 2, 'MatMul': 1, 'Mul': 1, 'ReLU': 1,
            'RealDiv': 1, 'Reshape': 15, 'Sqrt': 1, 'Sub': 1},
        "output": [([2, 2], 1)],
    },
    "embedding_layernorm": {
        "inputs": [([2, 3], 6)],
        "params": [('emb.embedding_table', [10, 6], 1), ('ln.gamma', [6], 1), ('ln.beta', [6], 1),
            ('fc.weight', [3, 6], 1), ('fc.bias', [3], 1)],
        "ops": {'Add': 2, 'BiasAdd': 1, 'Constant': 7, 'Gather': 1, 'MatMul': 1, 'Mul': 1, 'RealDiv': 1,
            'ReduceMean': 2, 'Reshape': 2, 'Sqrt': 1, 'Square': 1, 'Sub': 1},
        "output": [([2, 3, 3], 1)],
    },
    "recurrent": {
        "inputs": [([2, 5, 3], 1), ([4, 2, 3], 1)],
        "params": [('lstm.bias_ih_l0', [16], 1), ('lstm.bias_hh_l0', [16], 1), ('lstm.weight_ih_l0', [16, 3],
            1), ('lstm.weight_hh_l0', [16, 4], 1), ('lstm.bias_ih_l0_reverse', [16], 1),
            ('lstm.bias_hh_l0_reverse', [16], 1), ('lstm.weight_ih_l0_reverse', [16, 3], 1),
            ('lstm.weight_hh_l0_reverse', [16, 4], 1), ('lstm.bias_ih_l1', [16], 1), ('lstm.bias_hh_l1', [16],
            1), ('lstm.weight_ih_l1', [16, 8], 1), ('lstm.weight_hh_l1', [16, 4], 1),
            ('lstm.bias_ih_l1_reverse', [16], 1), ('lstm.bias_hh_l1_reverse', [16], 1),
            ('lstm.weight_ih_l1_reverse', [16, 8], 1), ('lstm.weight_hh_l1_reverse', [16, 4], 1),
            ('gru.weight_ih_l0', [12, 3], 1), ('gru.bias_ih_l0', [12], 1), ('gru.weight_hh_l0', [12, 4], 1),
            ('gru.bias_hh_l0', [12], 1), ('rnn.bias_ih_l0', [2], 1), ('rnn.bias_hh_l0', [2], 1),
            ('rnn.weight_ih_l0', [2, 3], 1), ('rnn.weight_hh_l0', [2, 2], 1), ('fc.weight', [2, 8], 1),
            ('fc.bias', [2], 1)],
        "ops": {'Add': 86, 'BiasAdd': 11, 'Concat': 11, 'Constant': 48, 'MakeTuple': 12, 'MatMul': 35, 'Mul':
            68, 'ReLU': 4, 'Reshape': 81, 'Sigmoid': 28, 'StridedSlice': 136, 'Sub': 4, 'Tanh': 44,
            'Transpose': 8},
        "output": 'tuple',
    },
    "recurrent_lengths": {
        "inputs": [([4, 3, 3], 1), ([2, 3, 4], 1), ([2, 3, 4], 1), ([3], 6), ([3, 4, 3], 1)],
        "params": [('lstm.bias_ih_l0', [16], 1), ('lstm.bias_hh_l0', [16], 1), ('lstm.weight_ih_l0', [16, 3],
            1), ('lstm.weight_hh_l0', [16, 4], 1), ('lstm.bias_ih_l0_reverse', [16], 1),
            ('lstm.bias_hh_l0_reverse', [16], 1), ('lstm.weight_ih_l0_reverse', [16, 3], 1),
            ('lstm.weight_hh_l0_reverse', [16, 4], 1), ('gru.weight_ih_l0', [9, 3], 1), ('gru.bias_ih_l0',
            [9], 1), ('gru.weight_hh_l0', [9, 3], 1), ('gru.bias_hh_l0', [9], 1), ('gru.weight_ih_l0_reverse',
            [9, 3], 1), ('gru.bias_ih_l0_reverse', [9], 1), ('gru.weight_hh_l0_reverse', [9, 3], 1),
            ('gru.bias_hh_l0_reverse', [9], 1)],
        "ops": {'Add': 59, 'BiasAdd': 12, 'BroadcastTo': 16, 'Concat': 9, 'Constant': 50, 'Less': 16,
            'MakeTuple': 10, 'MatMul': 20, 'Mul': 40, 'Reshape': 66, 'Select': 40, 'Sigmoid': 24,
            'StridedSlice': 102, 'Sub': 8, 'Tanh': 24, 'Transpose': 4},
        "output": 'tuple',
    },
    "more_layers": {
        "inputs": [([1, 2, 7, 9], 1), ([1, 3], 6)],
        "params": [('front.1.weight', [4, 1, 3, 3], 1), ('front.2.gamma', [4], 1), ('front.2.beta', [4], 1),
            ('front.3.w', [4], 1), ('up.weight', [4, 3, 3, 3], 1), ('up.bias', [3], 1),
            ('onehot.embedding_table', [6, 3], 1)],
        "ops": {'Abs': 1, 'AdaptiveMaxPool2D': 1, 'Add': 9, 'AvgPool': 1, 'BatchMatMul': 1, 'BroadcastTo': 1,
            'Cast': 2, 'Concat': 2, 'Constant': 51, 'Conv2D': 1, 'Conv2DTranspose': 1, 'Equal': 2, 'Exp': 1,
            'Gather': 2, 'Greater': 4, 'Less': 2, 'Log': 1, 'MakeTuple': 3, 'MatMul': 2, 'MaxPool': 1, 'Mul':
            7, 'Neg': 1, 'OneHot': 1, 'RealDiv': 1, 'ReduceMean': 2, 'Reshape': 17, 'Select': 6, 'Softmax': 1,
            'Sqrt': 1, 'Square': 1, 'StridedSlice': 2, 'Sub': 2, 'Tanh': 2, 'TupleGetItem': 2, 'ZerosLike':
            3},
        "output": 'tuple',
    },
    "resample": {
        "inputs": [([1, 1, 3, 4], 1)],
        "params": [],
        "ops": {'BatchMatMul': 1, 'BroadcastTo': 2, 'Concat': 1, 'Constant': 37, 'Gather': 4, 'MakeTuple': 2,
            'MatMul': 7, 'Reshape': 17, 'StridedSlice': 1, 'Transpose': 6},
        "output": 'tuple',
    },
    "transformer": {
        "inputs": [([3, 2, 8], 1), ([4, 2, 6], 1), ([4, 2, 4], 1), ([2, 4], 9), ([3, 4], 1), ([2, 4, 8], 1),
            ([4, 2, 8], 1)],
        "params": [('mha.in_proj_bias', [24], 1), ('mha.q_proj_weight', [8, 8], 1), ('mha.k_proj_weight', [8,
            6], 1), ('mha.v_proj_weight', [8, 4], 1), ('mha.out_proj.weight', [8, 8], 1),
            ('mha.out_proj.bias', [8], 1), ('enc.self_attn.in_proj_weight', [24, 8], 1),
            ('enc.self_attn.in_proj_bias', [24], 1), ('enc.self_attn.out_proj.weight', [8, 8], 1),
            ('enc.self_attn.out_proj.bias', [8], 1), ('enc.norm1.gamma', [8], 1), ('enc.norm1.beta', [8], 1),
            ('enc.dense1.weight', [16, 8], 1), ('enc.dense1.bias', [16], 1), ('enc.dense2.weight', [8, 16],
            1), ('enc.dense2.bias', [8], 1), ('enc.norm2.gamma', [8], 1), ('enc.norm2.beta', [8], 1),
            ('dec.norm1.gamma', [8], 1), ('dec.norm1.beta', [8], 1), ('dec.self_attn.in_proj_weight', [24, 8],
            1), ('dec.self_attn.in_proj_bias', [24], 1), ('dec.self_attn.out_proj.weight', [8, 8], 1),
            ('dec.self_attn.out_proj.bias', [8], 1), ('dec.norm2.gamma', [8], 1), ('dec.norm2.beta', [8], 1),
            ('dec.multihead_attn.in_proj_weight', [24, 8], 1), ('dec.multihead_attn.in_proj_bias', [24], 1),
            ('dec.multihead_attn.out_proj.weight', [8, 8], 1), ('dec.multihead_attn.out_proj.bias', [8], 1),
            ('dec.norm3.gamma', [8], 1), ('dec.norm3.beta', [8], 1), ('dec.dense1.weight', [16, 8], 1),
            ('dec.dense1.bias', [16], 1), ('dec.dense2.weight', [8, 16], 1), ('dec.dense2.bias', [8], 1)],
        "ops": {'Add': 18, 'BatchMatMul': 8, 'BiasAdd': 15, 'BroadcastTo': 2, 'Cast': 1, 'Constant': 51,
            'Erf': 1, 'MakeTuple': 1, 'MatMul': 15, 'Mul': 12, 'ReLU': 1, 'RealDiv': 11, 'ReduceMean': 10,
            'ReduceSum': 1, 'Reshape': 48, 'Select': 2, 'Softmax': 4, 'Sqrt': 5, 'Square': 5, 'StridedSlice':
            17, 'Sub': 5, 'Transpose': 16},
        "output": 'tuple',
    },
    "passthrough": {
        "inputs": [([1, 2, 3, 5], 1), ([3], 7)],
        "params": [('emb.embedding_table', [5, 2], 1)],
        "ops": {'AdaptiveMaxPool2D': 1, 'Add': 1, 'Constant': 7, 'Gather': 1, 'Identity': 2, 'MakeTuple': 1,
            'Reshape': 1, 'StridedSlice': 1, 'TupleGetItem': 2},
        "output": 'tuple',
    },
    "more_math": {
        "inputs": [([2, 5], 1), ([2, 3], 6)],
        "params": [],
        "ops": {'Abs': 1, 'Add': 1, 'Constant': 12, 'Erfc': 1, 'Expm1': 2, 'FloorDiv': 2, 'FloorMod': 1,
            'Greater': 2, 'HSwish': 1, 'IsInf': 1, 'IsNan': 1, 'LogicalXor': 1, 'MakeTuple': 1, 'Minimum': 1,
            'Mish': 1, 'Mul': 4, 'RealDiv': 1, 'ReduceAll': 1, 'ReduceAny': 1, 'ReduceProd': 1, 'SeLU': 1,
            'Select': 1, 'Softplus': 1, 'Tan': 1, 'Trunc': 1},
        "output": 'tuple',
    },
    "elementwise": {
        "inputs": [([2, 3], 1)],
        "params": [],
        "ops": {'Abs': 1, 'Add': 2, 'Ceil': 1, 'Constant': 14, 'Cos': 1, 'Floor': 1, 'Greater': 1, 'Less': 1,
            'Log1p': 1, 'LogicalAnd': 1, 'LogicalNot': 1, 'LogicalOr': 1, 'MakeTuple': 1, 'Maximum': 1, 'Mul':
            2, 'NotEqual': 1, 'Reciprocal': 1, 'ReduceMin': 1, 'Reshape': 1, 'Rsqrt': 1, 'Sign': 1, 'Sin': 1,
            'StridedSlice': 1},
        "output": 'tuple',
    },
    "tensor_ops": {
        "inputs": [([2, 3, 4], 1), ([2, 3, 4], 1)],
        "params": [('w', [1, 4, 2], 1)],
        "ops": {'Abs': 1, 'Add': 1, 'BatchMatMul': 1, 'BroadcastTo': 1, 'Cast': 1, 'Concat': 1, 'Constant':
            30, 'Exp': 1, 'Gather': 1, 'Greater': 1, 'MakeTuple': 2, 'Mul': 1, 'Neg': 1, 'Pow': 1, 'RealDiv':
            1, 'ReduceMax': 1, 'ReduceMean': 1, 'ReduceSum': 1, 'Reshape': 5, 'ReverseV2': 1, 'Select': 1,
            'Sqrt': 1, 'StridedSlice': 4, 'Sub': 2, 'Transpose': 1, 'ZerosLike': 1},
        "output": 'tuple',
    },
}


def _export(tmp_path, name):
    net, inputs = mindir_cases.build(name)
    tensors = [ms.Tensor(x) for x in inputs]
    path = ms.export(net, *tensors, file_name=str(tmp_path / name), file_format="MINDIR")
    model = pb.ModelProto()
    with open(path, "rb") as f:
        model.ParseFromString(f.read())
    return net, tensors, path, model


def _flat(value):
    if isinstance(value, (tuple, list)):
        return [v for item in value for v in _flat(item)]
    return [value]


@pytest.mark.parametrize("name", sorted(mindir_cases.CASES))
def test_outputs_equal_mindspore(tmp_path, name):
    net, tensors, path, model = _export(tmp_path, name)
    assert path == str(tmp_path / name) + ".mindir"
    assert summary(model) == STRUCTURE[name]
    weights = {p.ref_key: p for p in model.graph.parameter}
    for pname, param in net.parameters_and_names():
        if pname in weights:                     # the file holds the network's own values
            stored = weights[pname]
            assert np.frombuffer(stored.raw_data, param.asnumpy().dtype).tobytes() == param.asnumpy().tobytes()
    got = [t.asnumpy() for t in _flat(net(*tensors))]
    want = MS_OUTPUTS[name]
    assert len(got) == len(want)
    for k, (g, (shape, dtype, values)) in enumerate(zip(got, want)):
        assert list(g.shape) == shape and g.dtype.name == dtype, (k, g.shape, g.dtype)
        np.testing.assert_allclose(g.reshape(-1), np.asarray(values, dtype), rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name}: output {k}")


def test_file_fields(tmp_path):
    _, _, _, model = _export(tmp_path, "pool_padding")
    assert (model.producer_name, model.mind_ir_version, model.little_endian) == ("mscustom", 3, True)
    prims = {p.name: p for p in model.primitives}
    by_type = {p.op_type: p for p in model.primitives}
    assert by_type["Conv2D"].prim_type == pb.PRIM_PRIMITIVE            # settings as attributes
    assert {a.name for a in by_type["Conv2D"].attribute} >= {"stride", "pad", "pad_mode", "dilation", "group"}
    assert by_type["AvgPool"].prim_type == pb.PRIM_FUNCTION            # settings as Constant inputs
    defined = {vi.name for vi in model.graph.input} | {p.name for p in model.graph.parameter}
    for node in model.graph.node:                                      # every input is defined before its use
        assert all(i in defined for i in node.input), node.name
        defined.update(node.output)
        if node.op_type != "Constant":
            assert node.op_type[len("REF::"):] in prims
            assert node.attribute[0].name == "shape"
    assert model.graph.output[0].name in defined
    path = ms.export(nn.Dense(2, 2), ms.Tensor(np.ones((1, 2), np.float32)), file_name=str(tmp_path / "d.mindir"),
                     file_format="MINDIR")
    assert path == str(tmp_path / "d.mindir")


def test_refusals(tmp_path):
    x = ms.Tensor(np.ones((3, 2, 4), np.float32))

    class Head(nn.Cell):
        def construct(self, x):
            return ops.cumsum(x, 1)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 4)
            self.head = Head()

        def construct(self, x):
            return self.head(self.fc(x))

    with pytest.raises(ValueError, match=r"ms.export: layer 'head' \(Head\) has no MindIR form: its op 'cumsum'"):
        ms.export(Net(), x, file_name=str(tmp_path / "a"), file_format="MINDIR")
    bn = nn.SequentialCell([nn.Dense(4, 4), nn.BatchNorm1d(4)])
    bn.set_train(True)
    with pytest.raises(ValueError, match=r"changes a tensor in place \(BatchNorm's moving statistics"):
        ms.export(bn, ms.Tensor(np.ones((2, 4), np.float32)), file_name=str(tmp_path / "b"), file_format="MINDIR")
    custom = ops.Custom(lambda a: a * 2, out_shape=lambda s: s, out_dtype=lambda d: d, func_type="pyfunc")

    class WithCustom(nn.Cell):
        def construct(self, x):
            return custom(x)

    with pytest.raises(ValueError, match=r"calls op '<lambda>', a Custom op \(extend front end\), which has no "
                                         "MindIR form"):
        ms.export(WithCustom(), x, file_name=str(tmp_path / "c"), file_format="MINDIR")

    class Indices(nn.Cell):
        def construct(self, x):
            return ops.max_pool2d(x, 2, 2, return_indices=True)

    with pytest.raises(ValueError, match=r"op 'max_pool2d': its argmax indices \(return_indices=True\) have no "
                                         r"MindIR form"):
        ms.export(Indices(), ms.Tensor(np.ones((1, 1, 4, 4), np.float32)), file_name=str(tmp_path / "i"),
                  file_format="MINDIR")
    with pytest.raises(TypeError, match=r"unsupported keyword argument\(s\) \['enc_key'\] \(mscustom writes plain "
                                        "MINDIR"):
        ms.export(nn.Dense(4, 2), x, file_name=str(tmp_path / "k"), file_format="MINDIR", enc_key=b"0" * 16)
    with pytest.raises(ValueError, match="file_format 'AIR' is MindSpore's Ascend format"):
        ms.export(nn.Dense(4, 2), x, file_name=str(tmp_path / "r"), file_format="AIR")
    assert not os.listdir(tmp_path)
