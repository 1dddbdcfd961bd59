"""``cupy.cuda.runtime`` of the stand-in."""
import os


class CUDARuntimeError(RuntimeError):
    pass


def getDeviceCount():
    return int(os.environ.get("REFJAX_CUPY_STANDIN_GPUS", "2"))


def getDeviceProperties(device):
    if not 0 <= device < getDeviceCount():
        raise CUDARuntimeError("cudaErrorInvalidDevice: invalid device ordinal")
    return {"name": b"Stand-in GPU (NumPy, not CUDA)", "totalGlobalMem": 0}


def deviceCanAccessPeer(device, peer):
    return 1
