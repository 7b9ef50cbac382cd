"""The gateway command in the loopback soak, beside the aiohttp gateways it is measured against.

``python -m benchmarks.bench_gateway`` soaks every stack and picks one; the
``command`` contender there is ``python -m sse_engine gateway`` itself (see
:mod:`benchmarks.gateway_soak.stack_command`). This runs just the comparison
that says what the command costs over the soak's own aiohttp gateways: at each
load, direct, the aiohttp proxy and relay, and the command's relay (a Chat
Completions client in front of the Messages upstream, as the relays), one
round, and writes it as a subsection of docs/benchmarks.md's gateway section,
leaving the rest of that section as it was (so not a ``bench_*`` module of
:mod:`benchmarks.run`, which writes whole sections).

    python -m benchmarks.gateway_command [--save FILE | --load FILE] [--no-write]

The run takes about 15 minutes (the N = 1,000 runs take ~150 s each).
"""

from __future__ import annotations

import argparse
import pickle
import re
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import report
from benchmarks.bench_gateway import _HEADER, FULL, Key, _cpu, _row, run
from benchmarks.gateway_soak.soak import Load, Result
from benchmarks.lanes import TIMES

__all__ = ["STACKS", "TITLE", "main", "subsection", "write"]

#: What the comparison runs: the command and the soak's gateways on its stack.
STACKS = ["aiohttp", "command"]
TITLE = "### The gateway command beside the soak's gateways"
#: The subsection goes before this heading of the gateway section (or at its end).
_BEFORE = "### The Relay's own memory"
#: Issue 23's bound on the command's CPU per relayed event, over the pass-through's.
CPU_TARGET = 1.5


def subsection(by: dict[Key, list[Result]], loads: tuple[Load, ...], minutes: float) -> str:
    """The markdown subsection: the rows of one run, the ratios, the load averages."""
    loads1 = [r.load1 for rs in by.values() for r in rs]
    lines = [
        TITLE, "",
        f"Written {report.stamp()}, from one round at "
        + " and ".join(f"N = {load.clients:,}" for load in loads)
        + f" that took {minutes:.0f} min; 1-minute load average {min(loads1):.1f} to"
        f" {max(loads1):.1f} when the runs started (each row's in its last column)."
        " **command** is `python -m sse_engine"
        " gateway --upstream-format messages` itself (the process the soak measures is the"
        " command), serving the same Chat Completions clients as the relays on"
        " `/v1/chat/completions`: the request through `Conversation`, the stream through its"
        " lean `Relay`, its keepalive timer, one log line per request. It has no"
        " pass-through of its own: its **relay ÷ proxy** is over the aiohttp proxy of the"
        " same run (the command is an aiohttp application). Its **events / read** is not"
        " told (the command does not count its reads).",
        "",
    ]
    for load in loads:
        n = load.clients
        direct = by.get(("direct", "direct", n), [])
        proxy = by.get(("aiohttp", "proxy", n))
        rows = [_row(("direct", "direct", n), direct, direct, None)] if direct else []
        for stack, kind in (("aiohttp", "proxy"), ("aiohttp", "relay"), ("command", "relay")):
            runs = by.get((stack, kind, n))
            if runs:
                baseline = proxy if kind == "relay" else None
                rows.append(_row((stack, kind, n), runs, direct, baseline))
        lines += [f"N = {n:,}:", "", report.markdown_table(_HEADER, rows, "llrrrrrrrrrrrrrr"), ""]
    ratios = []
    for load in loads:
        n = load.clients
        command, relay, proxy = (by.get((s, k, n)) for s, k in
                                 (("command", "relay"), ("aiohttp", "relay"), ("aiohttp", "proxy")))
        if command and relay and proxy:
            ratios.append(f"N = {n:,}: {_cpu(command) / _cpu(proxy):.2f}{TIMES} the proxy's"
                          f" ({_cpu(relay) / _cpu(proxy):.2f}{TIMES} for the soak's relay),"
                          f" {_cpu(command) / _cpu(relay):.2f}{TIMES} the soak's relay")
    if ratios:
        lines += ["The command's CPU per event: " + "; ".join(ratios) + ".", ""]
    over = [(n, _cpu(c) / _cpu(p)) for n, c, p in
            ((load.clients, by.get(("command", "relay", load.clients)),
              by.get(("aiohttp", "proxy", load.clients))) for load in loads) if c and p]
    if over:
        met = all(ratio <= CPU_TARGET for _, ratio in over)
        lines += [f"- the command's CPU per event at most {CPU_TARGET}{TIMES} the proxy's"
                  " (issue 23), every N: " + ("met" if met else "**missed**") + " — "
                  + ", ".join(f"N = {n:,}: {ratio:.2f}{TIMES}" for n, ratio in over), ""]
    return "\n".join(lines)


def write(text: str, path: Path = report.BENCHMARKS_MD) -> Path:
    """Put ``text`` into the gateway section of ``path``, replacing an earlier copy of it."""
    doc = path.read_text(encoding="utf-8")
    start, end = "<!-- section:gateway -->", "<!-- /section:gateway -->"
    head, rest = doc.split(start, 1)
    body, tail = rest.split(end, 1)
    # An earlier copy runs from its title to the next heading of its level (or the end).
    body = re.sub(re.escape(TITLE) + r"\n.*?(?=^### |\Z)", "", body, flags=re.DOTALL | re.M)
    at = body.find(_BEFORE)
    block = text.strip() + "\n\n"
    body = body[:at] + block + body[at:] if at >= 0 else body.rstrip("\n") + "\n\n" + block
    path.write_text(head + start + body + end + tail, encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    ap.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    ap.add_argument("--save", type=Path, metavar="FILE", help="pickle the results into FILE")
    ap.add_argument("--load", type=Path, metavar="FILE", help="write from results saved before "
                    "(by this or by bench_gateway --save) instead of running")
    args = ap.parse_args(argv)
    if args.load is not None:
        with open(args.load, "rb") as fh:
            by, _, loads, _, minutes = pickle.load(fh)  # our own file
    else:
        by, minutes = run(STACKS, FULL, {load.clients: 1 for load in FULL})
        loads = FULL
        if args.save is not None:
            with open(args.save, "wb") as fh:
                pickle.dump((dict(by), STACKS, loads, {}, minutes), fh)
    text = subsection(by, loads, minutes)
    print(text)
    if not args.no_write:
        print(f"wrote {write(text).relative_to(report.REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
