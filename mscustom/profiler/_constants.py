"""MindSpore's profiler enums (``mindspore.profiler.ProfilerActivity``, ...), with the same values.

They are accepted wherever MindSpore takes them; on this host-only library
every activity is CPU work and the Ascend-only settings change nothing.
"""

from enum import Enum

__all__ = ["ProfilerActivity", "ProfilerLevel", "AicoreMetrics", "ExportType", "HostSystem", "ProfilerAction"]


class ProfilerActivity(Enum):
    """What to collect: ``CPU`` (everything here), ``NPU``, ``GPU``."""

    NPU = "NPU"
    GPU = "GPU"
    CPU = "CPU"


class ProfilerLevel(Enum):
    """How much device data MindSpore collects on Ascend (no effect here)."""

    LevelNone = "LevelNone"
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"


class AicoreMetrics(Enum):
    """Ascend AI Core metrics (no effect here)."""

    PipeUtilization = "PipeUtilization"
    ArithmeticUtilization = "ArithmeticUtilization"
    Memory = "Memory"
    MemoryL0 = "MemoryL0"
    MemoryUB = "MemoryUB"
    ResourceConflictRatio = "ResourceConflictRatio"
    L2Cache = "L2Cache"
    MemoryAccess = "MemoryAccess"
    AiCoreNone = "None"


class ExportType(Enum):
    """Export formats: ``Text`` (the JSON trace and CSV/text tables written here) or ``Db``."""

    Db = "db"
    Text = "text"


class HostSystem(Enum):
    """Host system data MindSpore can sample (no effect here)."""

    CPU = "cpu"
    MEM = "mem"
    DISK = "disk"
    NETWORK = "network"
    OSRT = "osrt"


class ProfilerAction(Enum):
    """What the profiler does during one step, as a schedule decides (MindSpore's values)."""

    NONE = 0
    WARM_UP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
