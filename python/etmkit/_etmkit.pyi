"""Type hints of etmkit._etmkit, the package's C extension."""

from typing import Any, Iterator

import numpy as np

__version__: str
BLOCK_DTYPE: np.dtype[Any]
INSN_DTYPE: np.dtype[Any]
ELEM_DTYPE: np.dtype[Any]
PACKET_DTYPE: np.dtype[Any]
PROTO_ETMV3: int
PROTO_ETMV4: int
PROTO_ETE: int
PROTO_PTM: int
PROTO_ETMV2: int
ELEM_KIND_COUNT: int
PACKET_BYTES: int
INSN_EXEC: int
INSN_COND_FAIL: int
INSN_CANCEL: int
INSN_IMPLIED: int
INSN_CYCLES: int
INSN_P0: int

class Error(Exception):
    exit_class: int

class Stream(Iterator[np.ndarray]):
    def __next__(self) -> np.ndarray: ...
    def close(self) -> None: ...

class Profile:
    kind: str
    inputs: int
    decode_errors: int
    saturated: bool
    etm3: bool
    binaries: list[dict[str, Any]]
    entries: tuple[int, int]
    @classmethod
    def from_bytes(cls, data: bytes | bytearray | memoryview) -> Profile: ...
    def to_bytes(self) -> bytes: ...
    def __bytes__(self) -> bytes: ...
    def merge(self, other: Profile) -> Profile: ...
    def __add__(self, other: Profile) -> Profile: ...
    def __iadd__(self, other: Profile) -> Profile: ...

def elem_kind_name(kind: int) -> str: ...
def isa_name(isa: int) -> str: ...
def loss_name(reason: int) -> str: ...
def sec_name(sec: int) -> str: ...
def trace_on_reason_name(reason: int) -> str: ...
def packet_type_name(proto: int, type: int) -> str: ...
def _raw_stream(data: Any, rows: str, protocol: str, regs: dict[str, int],
                id: int = 0x10, frames: str = "coresight",
                images: list[tuple[str, int]] | None = None,
                elfs: list[tuple[str, int]] | None = None,
                ranges: bool = False, batch: int = 8192,
                jobs: int = 0) -> Stream: ...
