"""A module given both ways (PTX and the SASS ptxas made of it): which SASS instructions implement which
PTX line, and where they differ.

Per function (PTX ``.entry`` name = SASS function name), the tcgen05 records of both sides are matched
in order by what they do (op, shape, .num, pack, multicast, .cta_group, kind), as a diff matches lines;
what the order does not match is then matched by what it does alone (ptxas schedules). Differences said:
a .16x32bx2 split into two instructions, copies ptxas made of one line (an unrolled or retried loop),
an address immediate that differs (ptxas folded an add into it), PTX lines with no instruction of their
own (waits, fences) and SASS instructions no PTX line accounts for.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

NO_INSTRUCTION = ("wait::ld", "wait::st", "fence::before_thread_sync", "fence::after_thread_sync",
                  "relinquish_alloc_permit")  # fmt: skip
"""PTX ops ptxas makes no tcgen05 instruction of (layouts/explain/sass.yaml, ``none``)."""


def signature(record: dict[str, Any]) -> tuple[Any, ...]:
    """What a record does, in the fields both languages give.

    >>> signature({"op": "ld", "shape": "32x32b", "num": 8, "pack": False, "cta_group": None})
    ('ld', '32x32b', 8, False, None, None, None, None)
    """
    op = record.get("op")
    return (op, record.get("shape"), record.get("num"), record.get("pack"), record.get("multicast"),
            record.get("decompress"), (record.get("red") or {}).get("op") if op == "ld.red" else None,
            record.get("ws"))  # fmt: skip


def compatible(ptx: dict[str, Any], sass: dict[str, Any]) -> bool:
    """Same work: equal signatures, the same .cta_group where SASS shows one, a kind SASS allows."""
    if signature(ptx) != signature(sass):
        return False
    if sass.get("cta_group") is not None and ptx.get("cta_group") not in (None, sass["cta_group"]):
        return False
    if ptx.get("op") == "mma":
        kinds = str(sass.get("kind", "")).split(" or ")
        if ptx.get("kind") not in kinds:
            return False
        if sass.get("sparse") is not None and sass["sparse"] != ptx.get("sparse"):
            return False
    return True


LIGHT = ("op", "shape", "num", "pack", "multicast", "decompress", "red", "ws", "cta_group", "kind", "sparse",
         "offset", "threads", "line", "address", "function", "sass", "idesc")  # fmt: skip
"""The fields of a record pairing reads (kept per instruction when records are streamed out)."""


def light(record: dict[str, Any]) -> dict[str, Any]:
    """What pairing needs of a record, without its cells."""
    out = {k: record[k] for k in LIGHT if k in record}
    if "error" in record:
        out["error"] = True
    return out


def lender(
    seen: Sequence[tuple[str, Sequence[dict[str, Any]]]], any_names: bool
) -> Callable[[str | None], tuple[str, list[dict[str, Any]]] | None]:
    """Function name -> (path, records) of the PTX function a SASS function of that name pairs with: the
    first PTX module given with that function; ``any_names`` (one PTX and one SASS input), the only
    function of the only PTX module whatever its name."""
    index: dict[Any, tuple[str, list[dict[str, Any]]]] = {}
    only: list[tuple[str, list[dict[str, Any]]]] = []

    def find(name: str | None) -> tuple[str, list[dict[str, Any]]] | None:
        if not index and not only:
            for path, records in seen:
                for r in records:
                    index.setdefault(r.get("function"), (path, []))
                    if index[r.get("function")][0] == path:
                        index[r.get("function")][1].append(r)
            if any_names and len(seen) == 1 and len({r.get("function") for r in seen[0][1]}) == 1:
                only.append((seen[0][0], list(seen[0][1])))
        return index.get(name) or (only[0] if only else None)

    return find


def lent(
    sass: Sequence[dict[str, Any]], ptx: Sequence[dict[str, Any]], path: str
) -> list[tuple[int, dict[str, Any]]]:
    """The SASS MMAs (index in ``sass``) that take something from the PTX line they implement: the
    ``kind`` where the opcode alone leaves it open, and the idesc ``value`` (the PTX's,
    :data:`~tmemviz.ptx.constants.Value`) where the SASS knows nothing of it; with ``sparse`` and
    ``origin`` ({file, line}). What the SASS knows of an idesc is never replaced: one of several values
    on its paths stays so, whatever one value the PTX reader gives."""
    matched = _match(list(ptx), list(sass))
    at = {id(r): i for i, r in enumerate(sass)}
    out: list[tuple[int, dict[str, Any]]] = []
    for p in ptx:
        if p.get("op") != "mma" or not p.get("kind"):
            continue
        for s in matched.get(id(p), ()):
            if s.get("op") != "mma" or "error" in s:
                continue
            open_kind = " or " in str(s.get("kind"))
            # Lent only where the SASS knows nothing of it (not where it changes around a loop).
            known = s.get("idesc") is not None or s.get("idesc_varies")
            value = idesc_value(p.get("idesc")) if not known else None
            if value is None and not open_kind:
                continue  # the PTX adds nothing the SASS does not say
            origin = {"file": path, "line": p["line"]}
            out.append((at[id(s)], {"kind": p["kind"], "sparse": p.get("sparse"), "value": value,
                                    "origin": origin}))  # fmt: skip
    return out


def idesc_value(idesc: Any) -> Any:
    """A record's ``idesc`` as the :data:`~tmemviz.ptx.constants.Value` it was decoded from: its value,
    or its candidates (``0x082000?0``: a ``?`` nibble unknown, so a partly known nibble counts as
    unknown: less is known, nothing wrong); None when the record has none.

    >>> idesc_value({"value": 16}), idesc_value({"value": None, "candidates": ["0x082000?0"]})
    ((Bits(value=16, known=4294967295, width=32),), (Bits(value=136314880, known=4294967055, width=32),))
    """
    from tmemviz.ptx import constants as c

    if not isinstance(idesc, dict):
        return None
    if idesc.get("value") is not None:
        return c.const(idesc["value"])
    out = []
    for pattern in idesc.get("candidates") or ():
        digits = pattern.removeprefix("0x")
        value = known = 0
        for d in digits:
            value, known = value << 4, known << 4
            if d != "?":
                value |= int(d, 16)
                known |= 0xF
        out.append(c.Bits(value, known, 32))
    return tuple(out) or None


def pairing_for(
    sass: Sequence[dict[str, Any]],
    ptx_modules: Sequence[tuple[str, Sequence[dict[str, Any]]]],
    any_names: bool,
) -> dict[str, Any] | None:
    """The pairing of a SASS module with the PTX module (path, records) sharing most of its functions;
    ``any_names``: one of each was given, they pair whatever the names. None when no PTX module fits."""
    names = {r.get("function") for r in sass}

    def shared(item: tuple[str, Sequence[dict[str, Any]]]) -> int:
        return len(names & {r.get("function") for r in item[1]})

    best = max(ptx_modules, key=shared, default=None)
    if best is None or (not shared(best) and not (any_names and best[1])):
        return None
    return pair(best[0], best[1], sass)


def pair(path: str, ptx: Sequence[dict[str, Any]], sass: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Match the two modules' instructions function by function."""
    by_fn, sass_by_fn = by_function(ptx), by_function(sass)
    if len(by_fn) == 1 and len(sass_by_fn) == 1:
        (only,) = sass_by_fn
        sass_by_fn = {next(iter(by_fn)): sass_by_fn[only]}
    pairs: list[dict[str, Any]] = []
    used: set[int] = set()
    for fn, ptx_records in by_fn.items():
        matched = _match(ptx_records, sass_by_fn.get(fn, []))
        for p in ptx_records:
            got = sorted(matched.get(id(p), []), key=lambda s: s["line"])
            entry: dict[str, Any] = {"function": fn, "ptx_line": p["line"], "op": p.get("op"),
                                     "sass": [_where(s) for s in got]}  # fmt: skip
            notes = _differences(p, got)
            if notes:
                entry["notes"] = notes
            pairs.append(entry)
            used.update(id(s) for s in got)
    return {
        "paired_with": path,
        "pairs": pairs,
        "sass_without_ptx": [_where(s) for s in sass if id(s) not in used],
    }


def by_function(records: Iterable[dict[str, Any]]) -> dict[Any, list[dict[str, Any]]]:
    """Records grouped by their function, in order."""
    out: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        out[r.get("function")].append(r)
    return out


def _where(record: dict[str, Any]) -> Any:
    """A SASS instruction named by its code address (its listing line when the listing prints none)."""
    return record.get("address") or record["line"]


def candidates(
    ptx: Sequence[dict[str, Any]], sass: Sequence[dict[str, Any]]
) -> dict[int, tuple[list[dict[str, Any]], bool]]:
    """PTX line -> the SASS records that may implement it, and whether that is certain: matched in order
    (a run of the same work on both sides; with any copies placed beside it by what they do). Otherwise
    every SASS record of the same work that no line matched in order (ptxas moved blocks, so the order
    says nothing): a caller that must not guess asks all of them. One function's records."""
    exact: dict[int, list[dict[str, Any]]] = {}
    matched = _match(list(ptx), list(sass), exact)
    taken = {id(s) for units in exact.values() for s in units}
    loose = [s for s in sass if id(s) not in taken]
    out: dict[int, tuple[list[dict[str, Any]], bool]] = {}
    for p in ptx:
        if p.get("op") in NO_INSTRUCTION or "error" in p:
            continue
        if id(p) in exact:
            out[p["line"]] = (matched[id(p)], True)
        else:
            out[p["line"]] = ([s for s in loose if compatible(p, s)], False)
    return out


def _match(
    ptx: list[dict[str, Any]],
    sass: list[dict[str, Any]],
    exact: dict[int, list[dict[str, Any]]] | None = None,
) -> dict[int, list[dict[str, Any]]]:
    """PTX record id -> the SASS records that implement it; ``exact`` collects, for the records matched in
    order, the SASS records so matched (a record may get more: copies placed by what they do alone)."""
    work = [p for p in ptx if p.get("op") not in NO_INSTRUCTION and "error" not in p]
    units = _units(sass)
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    used: set[int] = set()
    taken: set[int] = set()
    signs_a, signs_b = [signature(p) for p in work], [signature(u[0]) for u in units]
    # In order, then in order again among what is left, until a pass places nothing: a block ptxas
    # moved elsewhere keeps its own order, so each pass places the runs the last one could not (checked
    # against ptxas's own line table on real kernels: tests/sass/test_kernels.py).
    while True:
        left_i = [i for i in range(len(work)) if i not in taken]
        left_j = [j for j in range(len(units)) if j not in used]
        a = [signs_a[i] for i in left_i]
        b = [signs_b[j] for j in left_j]
        placed = False
        for tag, i1, i2, j1, _ in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            if tag != "equal":
                continue
            for k in range(i2 - i1):
                i, j = left_i[i1 + k], left_j[j1 + k]
                p, unit = work[i], units[j]
                if compatible(p, unit[0]):
                    out[id(p)] += unit
                    used.add(j)
                    taken.add(i)
                    placed = True
                    if exact is not None:
                        exact[id(p)] = list(unit)
        if not placed:
            break
    # What order did not match: the same work elsewhere in the function (a copy, or scheduled apart).
    for j, unit in enumerate(units):
        if j in used:
            continue
        candidates = [i for i, p in enumerate(work) if compatible(p, unit[0])]
        if candidates:
            near = min(candidates, key=lambda i: (i not in taken, abs(i - j)))
            out[id(work[near])] += unit
    return out


def _units(sass: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """SASS records grouped as PTX lines: the two halves of a split pair are one unit."""
    units: list[list[dict[str, Any]]] = []
    for r in sass:
        if r.get("threads") == [16, 31] and units and units[-1][0].get("threads") == [0, 15] \
                and len(units[-1]) == 1 and signature(units[-1][0]) == signature(r):  # fmt: skip
            units[-1].append(r)
        else:
            units.append([r])
    return units


def _differences(p: dict[str, Any], got: list[dict[str, Any]]) -> list[str]:
    if p.get("op") in NO_INSTRUCTION:
        return ["no SASS instruction of its own (ptxas 13.5)"]
    if not got:
        return ["no SASS instruction found for this line (ptxas removed or merged it)"]
    notes = []
    halves = [s for s in got if s.get("threads")]
    units = len(got) - len(halves) + len(halves) // 2
    if halves:
        notes.append("split: each copy is two SASS instructions, threads 0..15 and 16..31, the second "
                     "address adding the split offset")  # fmt: skip
    if units > 1:
        notes.append(f"duplicate: ptxas made {units} copies of this line")
    offset = p.get("offset")
    if offset is not None:
        for s in got:
            if s.get("threads") == [16, 31]:
                continue
            if s.get("offset") != offset:
                notes.append(
                    f"offset: the PTX address adds lane {offset['lane']}, column {offset['col']}; SASS "
                    f"{s.get('address')} adds lane {s['offset']['lane']}, column {s['offset']['col']} "
                    "(ptxas folded an address computation into the immediate)"
                )
                break
    if p.get("op") == "mma" and got and " or " in str(got[0].get("kind")):
        notes.append(
            f"kind: SASS {got[0]['sass'].split()[0]} alone allows {got[0]['kind']}; PTX says {p['kind']}"
        )
    return notes
