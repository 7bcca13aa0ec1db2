"""ETMv3 packet encoder for etmkit's flow tests.

Written from the ETM architecture specification (ARM IHI 0014Q chapter 7)
and the project's digest (../shared/spec/etmv3.md), independently of
etmkit's C decoder: the tests encode what a trace unit would emit and check
what the decoder makes of it. The encoder keeps the compression references
a trace unit keeps (instruction address and state, data address,
timestamp) and always emits the shortest form that decodes correctly,
unless a test asks for a given length.
"""

ISAS = ("arm", "thumb", "thumbee", "jazelle")
# I-sync reason codes (7.10.5, Table 7.21).
REASONS = {"periodic": 0, "trace_on": 1, "overflow": 2, "debug_exit": 3}

# Headers that are the whole packet (Table 7.1): trigger (7.2), store
# failed (7.4.7), data suppressed (7.4.6), ignore (7.2), exception exit
# (7.6) and, ARMv7-M, exception entry (7.5).
SINGLE = {"trigger": 0x0C, "store_failed": 0x50, "suppressed": 0x62,
          "ignore": 0x66, "exc_exit": 0x76, "exc_entry": 0x7E}


class EncodeError(Exception):
    pass


def groups7(v, nbytes):
    """nbytes of 7-bit groups with continuation bits (7.3.4, 7.4.2)."""
    out = []
    for k in range(nbytes):
        b = (v >> (7 * k)) & 0x7F
        out.append(b | (0x80 if k < nbytes - 1 else 0))
    return out


def cc_field(v):
    """Cycle count: 1-5 bytes, 7 bits each, the 5th holds bits [31:28]
    (7.3.4)."""
    out = []
    for k in range(4):
        b = (v >> (7 * k)) & 0x7F
        if v >> (7 * (k + 1)):
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)
    out.append((v >> 28) & 0x0F)
    return bytes(out)


# Branch address packets (7.3.5; digest 4.5.1): the low address bit byte 0
# starts at, per instruction set; the 5th byte's pattern per set.
SHIFT = {"arm": 2, "thumb": 1, "thumbee": 1, "jazelle": 0}


def fifth_byte(isa, addr):
    """The 5th branch address byte (7.3.5; digest 4.5.3)."""
    if isa == "arm":
        return 0x08 | ((addr >> 29) & 0x7)
    if isa in ("thumb", "thumbee"):
        return 0x10 | ((addr >> 28) & 0xF)
    return 0x20 | ((addr >> 27) & 0x1F)


class Encoder:
    def __init__(self, alt=False, cid_bytes=0, ts_bits=48, ca=False,
                 minor=5):
        self.alt = alt            # alternative branch encoding (7.3.5)
        self.cid_bytes = cid_bytes
        self.ts_bits = ts_bits
        self.ca = ca
        self.minor = minor
        self.addr = 0             # instruction address reference
        self.isa = "arm"
        self.daddr = None         # data address reference
        self.ts = None

    # ---- synchronisation ------------------------------------------------

    def async_(self):
        return bytes([0, 0, 0, 0, 0, 0x80])  # 7.10.1

    def info_byte(self, reason, isa, ns, hyp, lsip):
        """I-sync information byte (7.10.5): LSiP, reason, J, NS, AltISA,
        Hyp; bit 0 set as real trace units do (digest 4.4)."""
        j = 1 if isa == "jazelle" else 0
        alt = 1 if isa == "thumbee" else 0
        return ((lsip << 7) | (REASONS[reason] << 5) | (j << 4) | (ns << 3)
                | (alt << 2) | (hyp << 1) | 1)

    def isync(self, addr, isa="arm", reason="periodic", ns=0, hyp=0, cid=0,
              cycles=None, lsip=None, data_only=False):
        """Normal, cycle-count, LSiP and data-only I-sync (7.10.5).
        lsip: (next_addr, next_isa[, exc]) of the current instruction;
        exc (exception bytes with number 0) makes it the 6-byte form that
        changes the security state."""
        out = bytearray([0x70] if cycles is not None else [0x08])
        if cycles is not None:
            out += cc_field(cycles)
        out += (cid & 0xFFFFFFFF).to_bytes(4, "little")[:self.cid_bytes]
        if data_only:
            out.append((REASONS[reason] << 5) | (ns << 3) | (hyp << 1) | 1)
            return bytes(out)
        out.append(self.info_byte(reason, isa, ns, hyp, 1 if lsip else 0))
        t = 1 if isa in ("thumb", "thumbee") else 0
        word = addr | t if isa != "jazelle" else addr
        out += (word & 0xFFFFFFFF).to_bytes(4, "little")
        self.addr, self.isa = addr, isa
        if lsip:
            out += self.branch_field(lsip[0], lsip[1],
                                     exc=lsip[2] if len(lsip) > 2 else None)
        return bytes(out)

    # ---- branches ----------------------------------------------------------

    def covered(self, isa, nbytes):
        """Low address bits an nbytes branch address carries (7.3.5:
        6 in byte 0, 7 in each further byte, 6 in the last one of the
        alternative encoding)."""
        bits = 6
        for k in range(1, nbytes):
            final = k == nbytes - 1
            bits += 6 if (final and self.alt) else 7
        return bits + SHIFT[isa]

    def branch_field(self, addr, isa, nbytes=None, exc=None):
        """Address bytes, then exception bytes (7.3.5, digest 4.5).
        exc: dict(number, cancel, ns, hyp, altisa, resume)."""
        need5 = isa != self.isa
        if exc is not None and not self.alt:
            # The original encoding has exception bytes only after a
            # 5-byte address (7.3.5).
            need5 = True
        if nbytes is None:
            nbytes = 5
            if not need5:
                lo = 2 if (exc is not None) else 1
                for k in range(lo, 5):
                    c = self.covered(isa, k)
                    if (addr >> c) == (self.addr >> c):
                        nbytes = k
                        break
        v = addr >> SHIFT[isa]
        out = [((v & 0x3F) << 1) | 1]
        v >>= 6
        for k in range(1, nbytes):
            if k == 4:
                b = fifth_byte(isa, addr)
                if exc is not None:
                    b |= 0x40
                out.append(b)
                break
            final = k == nbytes - 1
            if final and self.alt:
                b = v & 0x3F
                if exc is not None:
                    b |= 0x40
                v >>= 6
            else:
                b = v & 0x7F
                v >>= 7
            out.append(b | (0 if final else 0x80))
        if nbytes > 1:
            out[0] |= 0x80
        if exc is not None:
            out += self.exception_bytes(exc)
        self.addr, self.isa = addr, isa
        return bytes(out)

    def exception_bytes(self, exc):
        """Exception information bytes (7.3.5; digest 4.5.4). Byte 0: C
        AltISA Cancel Exc[3:0] NS; byte 1: C 0 Hyp Exc[8:4]; byte 2: 0 1 x
        Resume[3:0]."""
        n = exc.get("number", 0)
        b0 = ((exc.get("altisa", 0) << 6) | (exc.get("cancel", 0) << 5)
              | ((n & 0xF) << 1) | exc.get("ns", 0))
        out = [b0]
        # Byte 1 carries Exc[8:4] and Hyp: sent when either is needed,
        # or to say Hyp is now 0. Without it Hyp keeps its value: 7.3.5
        # does not say what an absent byte 1 means for Hyp; this is the
        # digest's rule for absent state (4.5.4), as etmkit reads it.
        want1 = n > 15 or exc.get("hyp", 0) or exc.get("hyp_given", False)
        want2 = "resume" in exc
        if want1:
            out[0] |= 0x80
            out.append((exc.get("hyp", 0) << 5) | ((n >> 4) & 0x1F))
        if want2:
            out[-1] |= 0x80
            out.append(0x40 | (exc["resume"] & 0xF))
        return out

    def branch(self, addr, isa=None, nbytes=None, exc=None):
        return bytes(self.branch_field(addr, isa or self.isa, nbytes, exc))

    # ---- atoms ----------------------------------------------------------

    def p_header(self, atoms):
        """One P-header holding exactly @atoms (oldest first), in the
        format that encodes them (7.3.1, Tables 7.2 and 7.3)."""
        a = atoms.upper()
        if not self.ca:
            if "W" in a:
                raise EncodeError("W atoms need cycle-accurate mode")
            e = len(a.rstrip("N"))
            if a[:e] == "E" * e and len(a) - e <= 1 and e <= 15:
                return bytes([0x80 | ((len(a) - e) << 6) | (e << 2)])
            if len(a) == 2:  # format 2 (Table 7.2): bit 3 first, bit 2 second; N = 1
                return bytes([0x82 | ((a[0] == "N") << 3) | ((a[1] == "N") << 2)])
            raise EncodeError("no non-cycle-accurate P-header for " + atoms)
        # Format 1: n x WE then optional WN (not 0x80).
        body = a[:-2] if a.endswith("WN") else a
        if a and len(body) % 2 == 0 and body == "WE" * (len(body) // 2) \
                and len(body) // 2 <= 7 and a != "":
            n = len(body) // 2
            return bytes([0x80 | ((a.endswith("WN")) << 6) | (n << 2)])
        if len(a) == 3 and a[0] == "W" and set(a[1:]) <= {"E", "N"}:
            return bytes([0x82 | ((a[1] == "N") << 3) | ((a[2] == "N") << 2)])
        w = len(a.rstrip("E"))
        if a[:w] == "W" * w and 1 <= w <= 8 and len(a) - w <= 1:
            return bytes([0x80 | ((len(a) - w) << 6) | 0x20 | ((w - 1) << 2)])
        if len(a) == 1 and a in "EN" and self.minor >= 3:
            # format 4, ETMv3.3 and later (Table 7.3)
            return bytes([0x92 | ((a == "N") << 2)])
        raise EncodeError("no cycle-accurate P-header for " + atoms)

    def cycle_count(self, v):
        return bytes([0x04]) + cc_field(v)  # 7.3.4

    # ---- data (7.4) -------------------------------------------------------

    def data_addr(self, addr, be=0):
        """1-5 bytes against the data address reference; the 5th byte has
        A[31:28] in [3:0] and BE in bit 4 (digest 4.12, UNCONFIRMED)."""
        n = 5
        if self.daddr is not None and not be:
            for k in range(1, 5):
                if (addr >> (7 * k)) == (self.daddr >> (7 * k)):
                    n = k
                    break
        self.daddr = addr
        if n < 5:
            return bytes(groups7(addr, n))
        out = [(addr >> (7 * k)) & 0x7F | 0x80 for k in range(4)]
        out.append(((addr >> 28) & 0xF) | (be << 4))
        return bytes(out)

    @staticmethod
    def ss(size):
        return {0: 0, 1: 1, 2: 2, 4: 3}[size]

    @staticmethod
    def value(v, size):
        return (v & 0xFFFFFFFF).to_bytes(4, "little")[:size]

    def normal_data(self, addr=None, value=None, size=None, be=0):
        """00A0SS10 [address] [value] (7.4.2). size: value bytes 0/1/2/4
        (default: the fewest that hold value)."""
        if value is not None and size is None:
            size = 0 if value == 0 else 1 if value < 0x100 else \
                2 if value < 0x10000 else 4
        size = size or 0
        hdr = 0x02 | ((addr is not None) << 5) | (self.ss(size) << 2)
        out = bytes([hdr])
        if addr is not None:
            out += self.data_addr(addr, be)
        return out + self.value(value or 0, size)

    def placeholder(self, tag, addr=None, be=0):
        """01A1TT00 [address] (7.4.3)."""
        out = bytes([0x50 | ((addr is not None) << 5) | (tag << 2)])
        return out + (self.data_addr(addr, be) if addr is not None else b"")

    def ooo_data(self, tag, value, size=None):
        """0TT0SS00 value (7.4.3)."""
        if size is None:
            size = 0 if value == 0 else 1 if value < 0x100 else \
                2 if value < 0x10000 else 4
        return bytes([(tag << 5) | (self.ss(size) << 2)]) + self.value(value, size)

    def value_not_traced(self, addr=None):
        # 011A1010 (7.4, Table 7.1)
        out = bytes([0x6A | ((addr is not None) << 4)])
        return out + (self.data_addr(addr) if addr is not None else b"")

    # ---- others -------------------------------------------------------------

    def timestamp(self, v, clock_change=0):
        """4R42 header, 7-bit groups, the last byte of a 48-bit field holds
        6 bits and of a 64-bit field 8 (7.7.4); only the bits up to the
        highest that changed are sent."""
        last = 6 if self.ts_bits == 48 else 8
        n = last + 1
        if self.ts is not None:
            for k in range(1, last + 1):
                if (v >> (7 * k)) == (self.ts >> (7 * k)):
                    n = k
                    break
        self.ts = v
        out = [0x42 | (clock_change << 2)]
        for k in range(n):
            if k == last:
                out.append((v >> (7 * k)) & 0xFF)
            else:
                out.append(((v >> (7 * k)) & 0x7F) | (0x80 if k < n - 1 else 0))
        return bytes(out)

    def context_id(self, v):
        # 7.3.6: header, then ETMCR's number of bytes, little-endian
        return bytes([0x6E]) + (v & 0xFFFFFFFF).to_bytes(4, "little")[:self.cid_bytes]

    def vmid(self, v):
        return bytes([0x3C, v & 0xFF])  # 7.3.7

    @staticmethod
    def single(name):
        return bytes([SINGLE[name]])
