"""etmkit.Profile over the saved form of partial profiles: parts written
here byte by byte from the layout (src/profile/profile_part_save.c,
docs/profile-part.md), loaded, saved, merged."""

import struct
import unittest

import etmkit

TALLY, TRACES, COVERAGE = 1, 2, 3


def part(kind, bins, ranges=(), second=(), inputs=1, errors=0,
         saturated=False):
    """The canonical saved form: BINS (name, build id bytes, base,
    text_base) sorted by name then build id, entries (bin, from, to,
    count) sorted by (bin, from, to); bins refer to BINS' indices."""
    order = sorted(range(len(bins)), key=lambda i: (bins[i][0].encode(),
                                                    bins[i][1]))
    rank = {old: new for new, old in enumerate(order)}
    body = b""
    for i in order:
        name, bid, base, text_base = bins[i]
        bid20 = bid.ljust(20, b"\0")
        body += struct.pack("<IIBB20sBBQQ", len(name.encode()), 0, len(bid),
                            1, bid20, 0, 0, base, text_base) + name.encode()
    n = 0
    for entries in (ranges, second):
        for b, lo, hi, count in sorted((rank[b], lo, hi, c)
                                       for b, lo, hi, c in entries):
            body += struct.pack("<IIQQQ", b, 0, lo, hi, count)
            n += 1
    size = 64 + len(body)
    head = b"ETMKPART" + struct.pack("<IIIIQQQQQ", 1, kind,
                                     1 if saturated else 0, len(bins),
                                     inputs, errors, len(ranges),
                                     len(second), size)
    return head + body


BIN_A = ("/usr/bin/a", b"\x01" * 20, 0x400000, 0x400000)
BIN_B = ("/lib/b.so", b"\x02" * 20, 0, 0x1000)


class ProfileTest(unittest.TestCase):
    def setUp(self):
        self.a = part(TALLY, [BIN_A], [(0, 0x400000, 0x400010, 3)],
                      [(0, 0x400010, 0x400100, 2)], inputs=1, errors=1)
        self.b = part(TALLY, [BIN_B, BIN_A],
                      [(1, 0x400000, 0x400010, 4), (0, 0x1000, 0x1008, 9)],
                      [], inputs=2, errors=0)
        # a + b, written out: A's range 3 + 4, B's range, A's branch.
        self.ab = part(TALLY, [BIN_A, BIN_B],
                       [(0, 0x400000, 0x400010, 7), (1, 0x1000, 0x1008, 9)],
                       [(0, 0x400010, 0x400100, 2)], inputs=3, errors=1)

    def test_round_trip(self):
        for data in (self.a, self.b, self.ab):
            p = etmkit.Profile.from_bytes(data)
            self.assertEqual(p.to_bytes(), data)
            self.assertEqual(bytes(p), data)

    def test_fields(self):
        p = etmkit.Profile.from_bytes(self.ab)
        self.assertEqual(p.kind, "tally")
        self.assertEqual((p.inputs, p.decode_errors, p.saturated),
                         (3, 1, False))
        self.assertEqual(p.entries, (2, 1))
        names = [b["name"] for b in p.binaries]
        self.assertEqual(sorted(names), ["/lib/b.so", "/usr/bin/a"])
        a = [b for b in p.binaries if b["name"] == "/usr/bin/a"][0]
        self.assertEqual(a, {"name": "/usr/bin/a", "file": None,
                             "build_id": "01" * 20, "has_elf": True,
                             "base": 0x400000, "text_base": 0x400000})

    def test_merge_sums(self):
        a = etmkit.Profile.from_bytes(self.a)
        b = etmkit.Profile.from_bytes(self.b)
        self.assertEqual(a.merge(b).to_bytes(), self.ab)
        self.assertEqual(b.merge(a).to_bytes(), self.ab)
        self.assertEqual((a + b).to_bytes(), self.ab)
        self.assertEqual(a.to_bytes(), self.a)        # unchanged
        self.assertEqual(a, etmkit.Profile.from_bytes(self.a))
        self.assertNotEqual(a, b)

    def test_inplace(self):
        a = etmkit.Profile.from_bytes(self.a)
        same = a
        a += etmkit.Profile.from_bytes(self.b)
        self.assertIs(a, same)
        self.assertEqual(a.to_bytes(), self.ab)

    def test_merge_many(self):
        parts = [etmkit.Profile.from_bytes(self.a) for _ in range(5)]
        m = etmkit.merge(parts)
        self.assertEqual(m.inputs, 5)
        self.assertEqual(m.decode_errors, 5)
        self.assertEqual(m.to_bytes(), part(
            TALLY, [BIN_A], [(0, 0x400000, 0x400010, 15)],
            [(0, 0x400010, 0x400100, 10)], inputs=5, errors=5))
        self.assertEqual(etmkit.merge(parts[:1]).to_bytes(), self.a)
        with self.assertRaises(ValueError):
            etmkit.merge([])

    def test_kinds_differ(self):
        a = etmkit.Profile.from_bytes(self.a)
        t = etmkit.Profile.from_bytes(part(TRACES, [BIN_A]))
        self.assertEqual(t.kind, "traces")
        with self.assertRaises(etmkit.Error) as cm:
            a.merge(t)
        self.assertEqual(cm.exception.exit_class, 2)
        self.assertIn("traces part does not merge with a tally part",
                      str(cm.exception))

    def test_binary_conflict(self):
        a = etmkit.Profile.from_bytes(self.a)
        other = (BIN_A[0], BIN_A[1], 0x500000, 0x500000)
        c = etmkit.Profile.from_bytes(part(TALLY, [other]))
        with self.assertRaises(etmkit.Error) as cm:
            a.merge(c)
        self.assertEqual(cm.exception.exit_class, 3)
        self.assertIn("/usr/bin/a", str(cm.exception))

    def test_bad_bytes(self):
        """The library's reason and byte offset in the message."""
        for bad, text in ((self.a[:40], "at byte 0: the part ends inside"),
                          (b"ETMKPARX" + self.a[8:],
                           "at byte 0: not a saved part: no ETMKPART magic")):
            with self.assertRaises(etmkit.Error) as cm:
                etmkit.Profile.from_bytes(bad)
            self.assertEqual(cm.exception.exit_class, 3)
            self.assertIn(text, str(cm.exception))

    def test_pickle(self):
        import pickle
        p = etmkit.Profile.from_bytes(self.ab)
        q = pickle.loads(pickle.dumps(p))
        self.assertIsInstance(q, etmkit.Profile)
        self.assertEqual(q.to_bytes(), self.ab)

    def test_type_errors(self):
        a = etmkit.Profile.from_bytes(self.a)
        with self.assertRaises(TypeError):
            a.merge(b"x")
        with self.assertRaises(TypeError):
            a + 1


if __name__ == "__main__":
    unittest.main()
