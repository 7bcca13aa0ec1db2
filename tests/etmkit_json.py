"""Reading etmkit's JSON Lines output in tests: every record is checked
against the JSON Schema of its output (docs/schema/, described in
docs/json.md) as it is read, so a test that reads etmkit JSON also checks
its form, e.g. that addresses are "0x..." strings and not numbers.

    import etmkit_json as ej
    recs = ej.lines(stdout, "elements")      # decode --json
    recs = ej.lines(stdout, "packets")       # packets --json, any protocol
    ej.num(r["addr"])                        # "0x8000" -> 0x8000

Schemas: "packets" (ETMv3, PTM, ETMv4/ETE or ETMv2 record), "packets-etmv3",
"packets-ptm", "packets-etmv4", "packets-etmv2", "elements". A record that does not match
raises SchemaMismatch naming the line and the first problem. Needs Debian's
python3-jsonschema (4.10 or later; tools/setup-debian installs it).
ETMKIT_SCHEMA_DIR overrides where the schemas are read from.
"""
import json
import os
import re

try:
    import jsonschema
except ImportError:  # pragma: no cover - reported, not skipped
    raise SystemExit("FAIL: python3-jsonschema is not installed (tools/setup-debian); "
                     "tests that read etmkit JSON check it against docs/schema/")

SCHEMA_DIR = os.environ.get("ETMKIT_SCHEMA_DIR") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "docs", "schema")
KINDS = ("packets", "packets-etmv3", "packets-ptm", "packets-etmv4", "packets-etmv2",
         "elements")

# Members written as "0x..." strings (docs/json.md): a member's name alone
# says whether it is a hex string or a number, in every output.
HEX_MEMBERS = frozenset(("addr", "end", "next_addr", "data_addr", "insn_addr", "ret_addr",
                         "target", "opcode", "value", "timestamp", "context_id",
                         "vmid"))
HEX_RE = re.compile(r"0x(0|[1-9a-f][0-9a-f]{0,15})\Z")


class SchemaMismatch(Exception):
    pass


_files = {}
_record_validators = {}
_whole_validators = {}


def schema(name):
    """The parsed schema file docs/schema/@name.schema.json (cached)."""
    if name not in _files:
        if name not in KINDS:
            raise ValueError("unknown schema %r (one of %s)" % (name, ", ".join(KINDS)))
        with open(os.path.join(SCHEMA_DIR, name + ".schema.json")) as f:
            s = json.load(f)
        jsonschema.validators.validator_for(s).check_schema(s)
        _files[name] = s
    return _files[name]


def whole_validator(name):
    """A validator for the whole schema file @name, references to the other
    files included: what a user of the installed schemas runs."""
    if name in _whole_validators:
        return _whole_validators[name]
    schemas = {k: schema(k) for k in KINDS}
    cls = jsonschema.validators.validator_for(schemas[name])
    try:  # jsonschema >= 4.18: references resolve through a registry
        import referencing
        import referencing.jsonschema
        registry = referencing.Registry().with_resources(
            (s["$id"], referencing.jsonschema.DRAFT202012.create_resource(s))
            for s in schemas.values())
        v = cls(schemas[name], registry=registry)
    except ImportError:  # Debian 12: jsonschema 4.10, RefResolver
        store = {s["$id"]: s for s in schemas.values()}
        v = cls(schemas[name], resolver=jsonschema.RefResolver.from_schema(
            schemas[name], store=store))
    _whole_validators[name] = v
    return v


def _record_validator(name, key, kind):
    """The validator of record kind @kind (@key: "type" or "kind") of schema
    file @name: its $defs entry, which the file's top level dispatches to
    (faster than the whole file's if/then chain, same rules). None if the
    file has no such record kind."""
    k = (name, kind)
    if k not in _record_validators:
        s = schema(name)
        if kind not in s["properties"][key]["enum"]:
            _record_validators[k] = None
        else:
            sub = _inline(s["$defs"][kind], s["$defs"])
            sub["$schema"] = s["$schema"]
            cls = jsonschema.validators.validator_for(s)
            _record_validators[k] = cls(sub)
    return _record_validators[k]


def _inline(node, defs):
    """@node with its references to "#/$defs/NAME" replaced by the
    definitions (they do not nest deeper than one level of references)."""
    if isinstance(node, list):
        return [_inline(n, defs) for n in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref", "")
    if ref.startswith("#/$defs/") and len(node) == 1:
        return _inline(defs[ref[len("#/$defs/"):]], defs)
    return {k: _inline(v, defs) for k, v in node.items()}


def _problem(v, obj):
    err = jsonschema.exceptions.best_match(v.iter_errors(obj))
    if err is None:
        return None
    path = "/".join(str(p) for p in err.absolute_path)
    return (path + ": " if path else "") + err.message


def _classifiers(name, kind):
    """For each member of record kind @kind of schema @name whose schema is
    a plain predicate (a hex string, a non-negative integer, any string, a
    string matching a pattern), a function giving that predicate's verdict:
    records whose members agree in value elsewhere and in verdict here have
    the same validity, so a verdict once found is remembered for them."""
    s = schema(name)
    d = s["$defs"]
    props = _inline(d[kind], d).get("properties", {})
    out = {}
    for m, ps in props.items():
        if ps == {"type": "integer", "minimum": 0} or ps == _inline(d["uint"], d):
            out[m] = lambda v: (type(v), v >= 0 if type(v) is int else v)
        elif set(ps) <= {"type", "pattern", "description"} and ps.get("type") == "string":
            rx = re.compile(ps["pattern"]) if "pattern" in ps else None
            out[m] = (lambda rx: lambda v: (type(v), (rx.search(v) is not None)
                                             if rx and type(v) is str else
                                             (type(v) is str) or v))(rx)
    return out


_classify = {}
_verdicts = {}


def _memo_key(name, key, obj):
    k = (name, obj[key])
    c = _classify.get(k)
    if c is None:
        c = _classify[k] = _classifiers(name, obj[key])
    try:
        return (name,) + tuple(sorted((m, c[m](v) if m in c else (type(v), v))
                                      for m, v in obj.items()))
    except TypeError:  # an unhashable member (list, object): never remembered
        return None


def problem(obj, kind):
    """None if @obj is a valid record of schema @kind, else what is wrong."""
    if kind == "packets":
        files = ("packets-etmv3", "packets-ptm", "packets-etmv4", "packets-etmv2")
    else:
        files = (kind,)
    if not isinstance(obj, dict):
        return "not an object"
    key = "kind" if kind == "elements" else "type"
    if not isinstance(obj.get(key), str):
        return "no %r string" % key
    why = []
    for name in files:
        v = _record_validator(name, key, obj[key])
        if v is None:
            continue
        mk = _memo_key(name, key, obj)
        if mk is not None and mk in _verdicts:
            p = _verdicts[mk]
        else:
            p = _problem(v, obj)
            if mk is not None and len(_verdicts) < 200000:
                _verdicts[mk] = p
        if p is None:
            return None
        why.append(p if len(files) == 1 else "as %s: %s" % (name, p))
    if not why:
        return "%s %r is not a record kind of docs/schema/%s.schema.json" % (
            key, obj[key], kind)
    return "; ".join(why)


def check(obj, kind, where=""):
    """Raise SchemaMismatch unless @obj is a valid record of schema @kind."""
    p = problem(obj, kind)
    if p is not None:
        raise SchemaMismatch("%s%srecord does not match docs/schema/%s.schema.json: "
                             "%s\n  record: %s" % (where, " " if where else "", kind,
                                                   p, json.dumps(obj)))
    return obj


def loads(line, kind, where=""):
    """One JSON Lines record of etmkit's output, parsed and checked."""
    return check(json.loads(line), kind, where)


def lines(text, kind, where=""):
    """Every record of etmkit's JSON Lines output @text, parsed and checked."""
    return [loads(l, kind, "%s line %d:" % (where, i + 1) if where else
                  "line %d:" % (i + 1))
            for i, l in enumerate(text.splitlines()) if l.strip()]


def num(v):
    """The integer of a hex member ("0x1f" -> 31); None stays None."""
    if v is None or isinstance(v, int):
        return v
    if not HEX_RE.match(v):
        raise ValueError("not a 0x hex value: %r" % (v,))
    return int(v, 16)


def ints(obj):
    """A copy of record @obj with its hex members as integers."""
    return {k: (num(v) if k in HEX_MEMBERS else v) for k, v in obj.items()}


def hexs(obj):
    """A copy of @obj with integer hex members written as etmkit writes them."""
    return {k: ("0x%x" % v if k in HEX_MEMBERS and isinstance(v, int)
                and not isinstance(v, bool) else v) for k, v in obj.items()}
