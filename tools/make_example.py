#!/usr/bin/env python3
"""Build etmkit's shipped examples: trace snapshot directories of ETMv3
sources in CoreSight formatter frames, one of them with a program to decode.

The packets are encoded here, in Python, from the ETM architecture
specification (ARM IHI 0014Q chapter 7) and the CoreSight formatter rules
(DDI 0314H 8.12.1), independently of etmkit's C decoder. Beside the snapshot
it writes expected.jsonl: for every packet, its trace ID, type, the input
offset of its first byte in the framed file, its bytes and key fields, so
tests can compare etmkit's output with what was encoded.

For etmv3-program it also writes the program's code as the core's memory
dump and expected_decode.jsonl: the instructions the program executed (in
the order, state and with the cycles the trace encodes) and the events, as
`etmkit decode --json` must report them.

Usage: make_example.py EXAMPLES_DIR   (writes etmv3-two-sources/,
                                       etmv3-data-trace/ and etmv3-program/)
"""
import json
import os
import sys

# Members etmkit writes as "0x..." hex strings, whatever the record
# (docs/json.md): addresses, opcodes, data values, timestamps, context IDs
# and VMIDs. Counts, lengths, offsets and codes stay numbers.
HEX_MEMBERS = ("addr", "end", "next_addr", "data_addr", "insn_addr", "ret_addr", "target",
               "opcode", "value", "timestamp", "context_id", "vmid")


def json_form(rec):
    """@rec with its hex members as etmkit's JSON writes them."""
    return {k: ("0x%x" % v if k in HEX_MEMBERS else v) for k, v in rec.items()}


# ---- ETMv3 packet encoders (IHI 0014Q chapter 7) -------------------------


def a_sync():
    return bytes([0, 0, 0, 0, 0, 0x80])  # 7.10.1


def cc_field(v):
    """Cycle count / 7-bit groups with continuation (7.3.4)."""
    out = []
    for k in range(5):
        if k == 4:
            out.append((v >> 28) & 0x0F)
            break
        b = (v >> (7 * k)) & 0x7F
        v_rest = v >> (7 * (k + 1))
        if v_rest:
            out.append(b | 0x80)
        else:
            out.append(b)
            break
    return bytes(out)


def i_sync(addr, isa, reason, ns=0, ctxid=None, cid_bytes=0, cycles=None):
    """Normal I-sync, optionally with cycle count (7.10.5)."""
    hdr = bytes([0x70]) + cc_field(cycles) if cycles is not None else bytes([0x08])
    cid = (ctxid or 0).to_bytes(4, "little")[:cid_bytes]
    info = (reason << 5) | (ns << 3) | 1
    t = 1 if isa == "thumb" else 0
    return hdr + cid + bytes([info]) + (addr | t).to_bytes(4, "little")


def branch(addr, isa, nbytes, alt=False, exc=None):
    """Branch address packet with nbytes address bytes (7.3.5).
    exc: (exception, cancel, ns) adds exception byte 0."""
    shift = {"arm": 2, "thumb": 1}[isa]
    v = addr >> shift
    out = [((v & 0x3F) << 1) | 1]
    v >>= 6
    for k in range(1, nbytes):
        if k == 4:
            b = (0x08 | ((addr >> 29) & 7)) if isa == "arm" else (0x10 | ((addr >> 28) & 0xF))
            if exc:
                b |= 0x40
            out.append(b)
            break
        final = k == nbytes - 1
        if final and alt:
            b = v & 0x3F
            if exc:
                b |= 0x40
            v >>= 6
        else:
            b = v & 0x7F
            v >>= 7
        out.append(b if final else b | 0x80)
    if nbytes > 1:
        out[0] |= 0x80
    if exc:
        e, cancel, ns = exc
        out.append((cancel << 5) | ((e & 0xF) << 1) | ns)
    return bytes(out)


def timestamp(v, bits=64):
    out = [0x42]
    last = 8 if bits == 64 else 6
    for k in range(last + 1):
        if k == last:
            out.append((v >> (7 * k)) & 0xFF)
            break
        b = (v >> (7 * k)) & 0x7F
        if v >> (7 * (k + 1)):
            out.append(b | 0x80)
        else:
            out.append(b)
            break
    return bytes(out)


def p_header_ca(n_we):
    """Cycle-accurate format 1: n_we x (W,E), 7.3.1 Table 7.3."""
    return bytes([0x80 | (n_we << 2)])


def p_header_plain(n_e, n=False):
    """Non-cycle-accurate format 1: n_e x E then N (Table 7.2)."""
    return bytes([0x80 | (0x40 if n else 0) | (n_e << 2)])


# ---- The two sources -------------------------------------------------------

def source_10():
    """ETMv3.5, cycle-accurate, 4-byte context ID, data address+value,
    64-bit binary timestamps."""
    pk = []
    add = lambda t, b, **f: pk.append(dict(type=t, bytes=b, **f))
    # Junk before sync: reported as one unsynced run.
    junk = bytes([0x84, 0x21, 0xA4])
    add("a_sync", a_sync())
    add("timestamp", timestamp(0x1234567), timestamp=0x1234567)
    add("i_sync_cycle", i_sync(0x00008000, "arm", 1, ctxid=0x42, cid_bytes=4, cycles=300),
        addr=0x8000, isa="arm", context_id=0x42, cycles=300, reason="trace_on")
    add("p_header", p_header_ca(3), atoms="WEWEWE")
    # Normal data b00A0SS10: A=1, SS=11 (4 bytes), address 0x20001000 (5 bytes)
    daddr = 0x20001000
    add("normal_data", bytes([0x2E]) + bytes([0x80 | (daddr & 0x7F), 0x80 | ((daddr >> 7) & 0x7F),
                                               0x80 | ((daddr >> 14) & 0x7F), 0x80 | ((daddr >> 21) & 0x7F),
                                               (daddr >> 28) & 0xF]) + (0xCAFEF00D).to_bytes(4, "little"),
        data_addr=daddr, value=0xCAFEF00D, size=4)
    add("p_header", bytes([0xA4]), atoms="WW")  # format 3, WWW=1: 2 W
    add("branch_address", branch(0x00008100, "arm", 2), addr=0x8100)
    add("p_header", p_header_ca(1), atoms="WE")
    # Out-of-order placeholder tag 2 with a 1-byte address, then its data.
    add("ooo_placeholder", bytes([0x78, 0x08]), tag=2, data_addr=0x20001008)
    add("p_header", bytes([0xC4]), atoms="WEWN")
    add("ooo_data", bytes([0x48, 0x34, 0x12]), tag=2, value=0x1234, size=2)
    add("context_id", bytes([0x6E]) + (0x43).to_bytes(4, "little"), context_id=0x43)
    add("vmid", bytes([0x3C, 0x07]), vmid=7)
    add("exception_exit", bytes([0x76]))
    add("branch_address", branch(0x0000A000, "thumb", 5), addr=0xA000, isa="thumb")
    add("timestamp", timestamp(0x1234600), timestamp=0x1234600)
    add("a_sync", a_sync())
    add("i_sync", i_sync(0x0000A010, "thumb", 0, ctxid=0x43, cid_bytes=4),
        addr=0xA010, isa="thumb", reason="periodic")
    add("p_header", bytes([0x8A]), atoms="WNE")
    return junk, pk


def source_11():
    """ETMv3.4 with the alternative branch encoding, not cycle-accurate,
    no context ID, no data trace."""
    pk = []
    add = lambda t, b, **f: pk.append(dict(type=t, bytes=b, **f))
    add("a_sync", a_sync())
    add("i_sync", i_sync(0x80000000, "arm", 1), addr=0x80000000, isa="arm", reason="trace_on")
    add("p_header", p_header_plain(5, n=True), atoms="EEEEEN")
    # IRQ (14) taken: alternative encoding, exception byte after 2 bytes.
    add("branch_address", branch(0x80000018, "arm", 2, alt=True, exc=(14, 0, 0)),
        addr=0x80000018, exception=14, cancel=0)
    add("p_header", bytes([0x86]), atoms="EN")  # format 2: bit3=0 E, bit2=1 N
    add("trigger", bytes([0x0C]))
    add("branch_address", branch(0x80001234, "arm", 3, alt=True), addr=0x80001234)
    add("p_header", p_header_plain(2), atoms="EE")
    return b"", pk


# ---- CoreSight formatter (DDI 0314H 8.12.1) --------------------------------

def frame_stream(items):
    """items: list of (id, byte). Returns (frames bytes, offsets list per item)
    using immediate ID changes (aux 0) and delayed ones (aux 1)."""
    out = bytearray()
    offsets = [None] * len(items)
    i = 0
    cur = None
    while i < len(items) or not out:
        frame = [0] * 16
        aux = 0
        base = len(out)
        for pair in range(8):
            e = 2 * pair
            if i >= len(items):
                # Pad with the null ID 0 and a zero data byte.
                frame[e] = 0x01
                if e < 14:
                    frame[e + 1] = 0x00
                cur = 0
                continue
            a_id, a_b = items[i]
            if a_id != cur:
                frame[e] = (a_id << 1) | 1  # new ID now (aux bit 0)
                cur = a_id
                if e == 14:
                    continue  # takes effect from the next frame
                frame[e + 1] = a_b
                offsets[i] = base + e + 1
                i += 1
                continue
            # The next item; past the end, the null ID 0 takes over.
            nxt = items[i + 1] if i + 1 < len(items) else (0, 0)
            if e == 14:
                frame[e] = a_b & 0xFE
                aux |= (a_b & 1) << pair
                offsets[i] = base + e
                i += 1
                continue
            if nxt[0] != cur:
                # Delayed ID change: byte e+1 still belongs to the old ID.
                frame[e] = (nxt[0] << 1) | 1
                aux |= 1 << pair
                frame[e + 1] = a_b
                offsets[i] = base + e + 1
                cur = nxt[0]
                i += 1
                continue
            frame[e] = a_b & 0xFE
            aux |= (a_b & 1) << pair
            offsets[i] = base + e
            i += 1
            frame[e + 1] = nxt[1]
            offsets[i] = base + e + 1
            i += 1
        frame[15] = aux
        out += bytes(frame)
        if i >= len(items):
            break
    return bytes(out), offsets


def interleave(streams, chunk):
    """Round-robin chunks of each (id, bytes) stream."""
    items = []
    pos = {sid: 0 for sid, _ in streams}
    while any(pos[sid] < len(data) for sid, data in streams):
        for sid, data in streams:
            p = pos[sid]
            for b in data[p:p + chunk]:
                items.append((sid, b))
            pos[sid] = min(len(data), p + chunk)
    return items


def data_addr5(a, be=0):
    """A full 5-byte data address (7.4.2); BE-8 flag in bit 4 of the 5th
    byte (digest etmv3.md 4.12)."""
    return bytes([0x80 | (a & 0x7F), 0x80 | ((a >> 7) & 0x7F),
                  0x80 | ((a >> 14) & 0x7F), 0x80 | ((a >> 21) & 0x7F),
                  ((a >> 28) & 0xF) | (be << 4)])


def source_data_10():
    """ETMv3.5, data address and value tracing, not cycle-accurate: the data
    packet forms OpenCSD's packet processor mis-reads, and the rest."""
    pk = []
    add = lambda t, b, **f: pk.append(dict(type=t, bytes=b, **f))
    add("a_sync", a_sync())
    add("i_sync", i_sync(0x00008000, "arm", 1), addr=0x8000, isa="arm")
    add("p_header", p_header_plain(1), atoms="E")
    # b00A0SS10 with A=1, SS=00: a data address (5 bytes, BE-8) and no
    # value bytes at all (Table 7.1, 7.4.2).
    add("normal_data", bytes([0x22]) + data_addr5(0x20002000, be=1),
        data_addr=0x20002000, be=1)
    add("p_header", p_header_plain(1), atoms="E")
    # Value not traced b011A1010: A=0 no address, A=1 an address.
    add("value_not_traced", bytes([0x6A]))
    add("value_not_traced", bytes([0x7A, 0x04]), data_addr=0x20002004)
    add("p_header", p_header_plain(2), atoms="EE")
    # A 64-bit out-of-order miss: two consecutive placeholders, tag 3,
    # the address on the first only; later, the two data halves.
    add("ooo_placeholder", bytes([0x7C, 0x10]), tag=3, data_addr=0x20002010)
    add("ooo_placeholder", bytes([0x5C]), tag=3)
    add("p_header", p_header_plain(1), atoms="E")
    add("ooo_data", bytes([0x6C, 0x11, 0x22, 0x33, 0x44]), tag=3, value=0x44332211,
        size=4, match=True, pair=0)
    add("ooo_data", bytes([0x6C, 0x55, 0x66, 0x77, 0x88]), tag=3, value=0x88776655,
        size=4, match=True, pair=1)
    # A STREX that failed: its data, then store failed (7.4.7).
    add("normal_data", bytes([0x06, 0x01]), value=1, size=1)
    add("store_failed", bytes([0x50]))
    add("data_suppressed", bytes([0x62]))
    add("p_header", p_header_plain(0, n=True), atoms="N")
    return b"", pk


def source_data_11():
    """ETMv3.0, cycle-accurate: format 0 P-headers (one W each), which only
    ETMv3.0 has (Table 7.3)."""
    pk = []
    add = lambda t, b, **f: pk.append(dict(type=t, bytes=b, **f))
    add("a_sync", a_sync())
    add("i_sync_cycle", i_sync(0x00001000, "thumb", 1, cycles=3), addr=0x1000,
        isa="thumb", cycles=3)
    add("p_header", bytes([0x80]), atoms="W", format=0)
    add("p_header", bytes([0x80]), atoms="W", format=0)
    add("p_header", p_header_ca(2), atoms="WEWE")
    add("cycle_count", bytes([0x04]) + cc_field(1000), cycles=1000)
    return b"", pk


def write_snapshot(outdir, sources, note, dumps=()):
    """sources: list of (trace id, junk, packets, device name, ini text);
    dumps: (file name, address, bytes) memory dumps of cpu_0."""
    os.makedirs(outdir, exist_ok=True)
    srcs = []
    expected = []
    for sid, junk, pk, _, _ in sources:
        data = bytearray(junk)
        starts = []
        for p in pk:
            starts.append(len(data))
            data += p["bytes"]
        srcs.append((sid, bytes(data), junk, pk, starts))
    items = interleave([(sid, data) for sid, data, _, _, _ in srcs], 5)
    framed, offsets = frame_stream(items)
    # Map (id, index within that source's stream) -> file offset.
    where = {}
    count = {}
    for (sid, _), off in zip(items, offsets):
        k = count.get(sid, 0)
        where[(sid, k)] = off
        count[sid] = k + 1
    for sid, data, junk, pk, starts in srcs:
        if junk:
            expected.append(dict(id=sid, type="unsynced", offset=where[(sid, 0)],
                                 length=len(junk)))
        for p, s in zip(pk, starts):
            rec = dict(id=sid, type=p["type"], offset=where[(sid, s)],
                       bytes=p["bytes"].hex())
            rec.update({k: v for k, v in p.items() if k not in ("type", "bytes")})
            expected.append(rec)
    with open(os.path.join(outdir, "trace.bin"), "wb") as f:
        f.write(framed)
    with open(os.path.join(outdir, "expected.jsonl"), "w") as f:
        for rec in expected:
            f.write(json.dumps(json_form(rec), sort_keys=True) + "\n")
    n = len(sources)
    devs = "".join("device%d=cpu_%d.ini\n" % (i, i) for i in range(n))
    devs += "".join("device%d=etm_%d.ini\n" % (n + i, i) for i in range(n))
    files = {
        "snapshot.ini": "; " + note + "\n[snapshot]\nversion=1.0\n\n[device_list]\n" +
                        devs + "\n[trace]\nmetadata=trace.ini\n",
        "trace.ini": "[trace_buffers]\nbuffers=buffer0\n\n[buffer0]\nname=ETB_0\n"
                     "file=trace.bin\nformat=coresight\n\n[source_buffers]\n" +
                     "".join("%s=ETB_0\n" % s[3] for s in sources) +
                     "\n[core_trace_sources]\n" +
                     "".join("cpu_%d=%s\n" % (i, s[3]) for i, s in enumerate(sources)),
    }
    for i in range(n):
        files["cpu_%d.ini" % i] = ("[device]\nname=cpu_%d\nclass=core\ntype=Cortex-A7\n"
                                   "\n[regs]\nPC=0x8000\n" % i)
    for name, addr, data in dumps:
        files["cpu_0.ini"] += "\n[dump]\nfile=%s\naddress=0x%08X\nlength=0x%X\n" % (
            name, addr, len(data))
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)
    for i, s in enumerate(sources):
        files["etm_%d.ini" % i] = s[4]
    for name, text in files.items():
        with open(os.path.join(outdir, name), "w") as f:
            f.write(text)


# ---- A program to decode ----------------------------------------------------
# Code at 0x8000, encodings from the ARM ARM (DDI 0406C): A32 from A8, T32
# from A8/A6. Each entry: address, instruction set, size, opcode (A32 word;
# T32 halfword), text.
PROGRAM = [
    (0x8000, "arm", 4, 0xE3A00000, "mov r0, #0"),
    (0x8004, "arm", 4, 0xE3A01003, "mov r1, #3"),
    (0x8008, "arm", 4, 0xE0800001, "add r0, r0, r1          @ loop"),
    (0x800C, "arm", 4, 0xE2511001, "subs r1, r1, #1"),
    (0x8010, "arm", 4, 0x1AFFFFFC, "bne loop (0x8008)"),
    (0x8014, "arm", 4, 0xFA000039, "blx 0x8100 (Thumb)"),
    (0x8018, "arm", 4, 0xEAFFFFFE, "b . (0x8018)"),
    (0x8100, "thumb", 2, 0x2806, "cmp r0, #6"),
    (0x8102, "thumb", 2, 0xBF0C, "ite eq"),
    (0x8104, "thumb", 2, 0x2201, "moveq r2, #1"),
    (0x8106, "thumb", 2, 0x2202, "movne r2, #2"),
    (0x8108, "thumb", 2, 0x4770, "bx lr"),
]

# What the core did: the loop runs three times (r1 = 3, 2, 1), the third
# BNE fails; BLX enters the Thumb function; r0 == 6 so MOVEQ executes and
# MOVNE fails; BX LR returns to ARM state at 0x8018, which loops on itself.
# (address, executed, cycles since the previous instruction)
EXECUTION = [
    (0x8000, 1, 1), (0x8004, 1, 1),
    (0x8008, 1, 1), (0x800C, 1, 1), (0x8010, 1, 2),
    (0x8008, 1, 1), (0x800C, 1, 1), (0x8010, 1, 2),
    (0x8008, 1, 1), (0x800C, 1, 1), (0x8010, 0, 1),
    (0x8014, 1, 3), (0x8100, 1, 11), (0x8102, 1, 1), (0x8104, 1, 0),
    (0x8106, 0, 1), (0x8108, 1, 1),
    (0x8018, 1, 9), (0x8018, 1, 1), (0x8018, 1, 1),
]
PROGRAM_GAP = 100      # cycles before trace starts (I-sync with cycle count)
PROGRAM_TS = 0x1234567


def program_image():
    """The code as it sits in memory (little-endian), 0x8000-0x810A."""
    img = bytearray(0x10A)
    for addr, _, size, op, _ in PROGRAM:
        img[addr - 0x8000:addr - 0x8000 + size] = op.to_bytes(size, "little")
    return bytes(img)


def ca_atoms(cycles, executed):
    """Cycle-accurate P-headers (Table 7.3) for one instruction after
    @cycles W atoms: format 3 headers of up to 8 W, then W E / W N (format 1)
    or, with no cycle at all, E / N (format 4, ETMv3.3+)."""
    out = []
    w = cycles - 1 if cycles else 0
    while w > 0:
        k = min(w, 8)
        out.append((0xA0 | ((k - 1) << 2), "W" * k))  # b1 0 1 WWW 00
        w -= k
    if cycles:
        out.append((0x84 if executed else 0xC0, "WE" if executed else "WN"))
    else:
        out.append((0x92 if executed else 0x96, "E" if executed else "N"))
    return out


def source_program():
    """ETMv3.5 cycle-accurate with 48-bit binary timestamps: the program's
    execution, and what etmkit decode must make of it."""
    pk = []
    add = lambda t, b, **f: pk.append(dict(type=t, bytes=b, **f))
    code = {a: (isa, size, op) for a, isa, size, op, _ in PROGRAM}
    add("a_sync", a_sync())
    add("i_sync_cycle", i_sync(0x8000, "arm", 1, cycles=PROGRAM_GAP), addr=0x8000,
        isa="arm", cycles=PROGRAM_GAP, reason="trace_on")
    add("timestamp", timestamp(PROGRAM_TS, bits=48), timestamp=PROGRAM_TS)
    events = [dict(kind="trace_on", reason="trace_enable", addr=0x8000, isa="arm",
                   gap_cycles=PROGRAM_GAP),
              dict(kind="context", ns=0, hyp=0),
              dict(kind="timestamp", value=PROGRAM_TS)]
    for addr, executed, cycles in EXECUTION:
        for b, atoms in ca_atoms(cycles, executed):
            add("p_header", bytes([b]), atoms=atoms)
        isa, size, op = code[addr]
        insn = dict(kind="insn", addr=addr, isa=isa, size=size, opcode=op,
                    exec=bool(executed), cycles=cycles)
        if not executed:
            insn["cond_fail"] = True  # an N atom (IHI 0014Q 7.3.1)
        events.append(insn)
        if addr == 0x8108:
            # BX LR is an indirect branch: its target comes in a branch
            # packet, here with the 5th byte for the change to ARM state.
            add("branch_address", branch(0x8018, "arm", 5), addr=0x8018, isa="arm")
    return b"", pk, events


def etm_ini(comment, name, version, etmcr, etmidr, etmccer, trace_id):
    return ("; %s\n[device]\nname=%s\nclass=trace_source\ntype=ETM%s\n\n[regs]\n"
            "ETMCR(0x000)=0x%08X\nETMIDR(0x079)=0x%08X\nETMCCER(0x07A)=0x%08X\n"
            "ETMTRACEIDR(0x080)=0x%08X\n" % (comment, name, version, etmcr, etmidr,
                                               etmccer, trace_id))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    j10, p10 = source_10()
    j11, p11 = source_11()
    write_snapshot(os.path.join(root, "etmv3-two-sources"), [
        (0x10, j10, p10, "ETM_0", etm_ini(
            "ETMv3.5: cycle-accurate, 4-byte context ID, data address and value "
            "tracing, 64-bit binary timestamps", "ETM_0", "3.5",
            0x1000D00C, 0x410CF250, 0x344008F2, 0x10)),
        (0x11, j11, p11, "ETM_1", etm_ini(
            "ETMv3.4 with the alternative branch encoding (ETMIDR[20])", "ETM_1",
            "3.4", 0, 0x4114F240, 0, 0x11)),
    ], "made by tools/make_example.py: two ETMv3 sources in one formatted buffer")
    j, d10 = source_data_10()
    _, d11 = source_data_11()
    write_snapshot(os.path.join(root, "etmv3-data-trace"), [
        (0x10, j, d10, "ETM_0", etm_ini(
            "ETMv3.5: data address and value tracing (ETMCR[3:2])", "ETM_0", "3.5",
            0x0000000C, 0x410CF250, 0, 0x10)),
        (0x11, b"", d11, "ETM_1", etm_ini(
            "ETMv3.0, cycle-accurate: format 0 P-headers", "ETM_1", "3.0",
            0x00001000, 0x410CF200, 0, 0x11)),
    ], "made by tools/make_example.py: ETMv3 data trace and format 0 P-headers")
    j, pp, events = source_program()
    out = os.path.join(root, "etmv3-program")
    write_snapshot(out, [
        (0x10, j, pp, "ETM_0", etm_ini(
            "ETMv3.5: cycle-accurate, 48-bit binary timestamps", "ETM_0", "3.5",
            0x10001000, 0x410CF250, 0x10400000, 0x10)),
    ], "made by tools/make_example.py: a small A32/T32 program and its trace",
        dumps=[("code.bin", 0x8000, program_image())])
    with open(os.path.join(out, "expected_decode.jsonl"), "w") as f:
        for e in events:
            f.write(json.dumps(json_form(dict(id=0x10, **e)), sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
