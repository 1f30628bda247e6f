"""Command line: ``bendscope-memory COMMAND [--store PATH|URL] …``.

Commands: ``serve`` (MCP over stdio; ``--http PORT`` for streamable HTTP on
127.0.0.1), ``import FILE`` (a Bendscope document into the store), ``export`` (the
store, a query's subgraph or some node ids, as a Bendscope document on stdout),
``retrieve QUERY``, ``analyze [NODE_ID …]``, ``consolidate [--dry-run]`` (decay, merge
duplicates, prune: never changing a loop). The store is a path, ``sqlite:///relative/path`` or
``sqlite:////absolute/path``,
``postgresql://user@host/db`` (a shared PostgreSQL database; ``--pool-size N``
connections per process), or by default ``$BENDSCOPE_MEMORY_STORE``, else
``memory.sqlite3`` in the user's data directory. Bad input: exit code 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

from bendscope.shared.docformat import MAX_NODES

from .core.embedders import EMBEDDERS, load_embedder
from .core.errors import InvalidInput, StoreUnavailable
from .core.service import Memory
from .io.documents import to_document
from .io.dump import Dump, dump_lines, is_dump, lines_of
from .store.opening import STORE_VARIABLE, default_store_path, open_store, resolved_from
from .store.scoped import check_namespace
from .store.sqlite import SQLiteStore
from .web.limits import Limits

MAX_FILE = 64 * 1024 * 1024


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (exit 2), like every other error."""

    def error(self, message: str) -> NoReturn:
        print(f"memory: error: {message} (see bendscope-memory --help)", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument(
        "--store",
        help="store path (a relative one: from the working folder), sqlite:///relative/path, "
        f"sqlite:////absolute/path or postgresql://user@host:port/db (default: ${STORE_VARIABLE}, "
        f"else {default_store_path()})",
        default=None,
    )
    common.add_argument(
        "--pool-size",
        type=int,
        metavar="N",
        default=None,
        help="PostgreSQL only: connections per process, and so tool calls served at once (default 4)",
    )
    common.add_argument(
        "--embedder",
        choices=EMBEDDERS,
        default=None,
        help="embed node content for retrieval (wordllama: the [semantic] extra; its model ships in the wheel and "
        "loads offline); vectors are kept in the store, the missing ones computed when serve starts",
    )
    common.add_argument(
        "--read-only",
        action="store_true",
        help="never write the store (reading tools only; retrieval records no access counts): for a store "
        "on read-only media, a full disk, or rescuing a damaged file",
    )
    parser = _Parser(prog="bendscope-memory", description="Bendscope agent memory (κ-aware)")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    serve = sub.add_parser("serve", parents=[common], help="serve the MCP tools (stdio by default)")
    serve.add_argument(
        "--namespace",
        help="serve this namespace of the store alone: every tool (those addressing an id too) and the editor read "
        "and write it only, and a call naming another namespace is refused",
    )
    serve.add_argument("--http", type=int, metavar="PORT", help="streamable HTTP on 127.0.0.1:PORT (0: a free port)")
    limits = Limits()
    serve.add_argument(
        "--header-timeout",
        type=float,
        metavar="S",
        default=limits.header_timeout,
        help=f"HTTP: seconds a client has to send a request head (default {limits.header_timeout:g})",
    )
    serve.add_argument(
        "--body-timeout",
        type=float,
        metavar="S",
        default=limits.body_timeout,
        help=f"HTTP: seconds a client has to send a request body (default {limits.body_timeout:g})",
    )
    serve.add_argument(
        "--max-connections",
        type=int,
        metavar="N",
        default=limits.max_connections,
        help=f"HTTP: connections open at once (default {limits.max_connections})",
    )
    serve.add_argument(
        "--max-sessions",
        type=int,
        metavar="N",
        default=limits.max_sessions,
        help=f"HTTP: MCP sessions open at once (default {limits.max_sessions})",
    )
    serve.add_argument(
        "--editor",
        action="store_true",
        help="HTTP: also serve the editor's page and /api/graph on the same origin, behind a token "
        "(prints 'editor on <URL>'; needs `make vendor`)",
    )
    serve.add_argument(
        "--token",
        help="HTTP: the token every request must carry (default with --editor: a random one; other users may "
        "see a command line: prefer --token-file)",
    )
    serve.add_argument("--token-file", metavar="PATH", help="HTTP: read the token from this file's first line")
    serve.add_argument("--session-idle", type=float, metavar="S", default=limits.session_idle,
                       help=f"HTTP: seconds after which a session without requests is closed "
                       f"(default {limits.session_idle:g})")  # fmt: skip
    imp = sub.add_parser("import", parents=[common], help="store a Bendscope document's or a dump's nodes and edges")
    imp.add_argument("file", help="a Bendscope document or a dump (export --dump), '-' for stdin")
    imp.add_argument(
        "--replace", action="store_true", help="make the store exactly the document (deletes what it lacks)"
    )
    exp = sub.add_parser("export", parents=[common], help="print the store as a Bendscope document")
    exp.add_argument("node_ids", nargs="*", help="only these nodes (default: all)")
    exp.add_argument("--query", help="only what this query retrieves")
    exp.add_argument(
        "--dump",
        action="store_true",
        help="the whole store as JSON Lines, every field, any size (backup and rescue; import reads it)",
    )
    scope = _Parser(add_help=False)
    scope.add_argument("--namespace", help="only this namespace of the store (its nodes and the edges among them)")
    exp.add_argument("--namespace", help="only this namespace of the store (not with --dump: the whole store)")
    ret = sub.add_parser("retrieve", parents=[common, scope], help="retrieve_context for a query")
    ret.add_argument("query")
    ret.add_argument("--limit", type=int, default=10)
    ret.add_argument("--hops", type=int, default=1, help="expansion hops (0-3)")
    ana = sub.add_parser("analyze", parents=[common, scope], help="analyze_topology of nodes, a query, or everything")
    ana.add_argument("node_ids", nargs="*")
    ana.add_argument("--query")
    con = sub.add_parser(
        "consolidate", parents=[common], help="decay, merge duplicates and prune, never changing a loop"
    )
    con.add_argument("--dry-run", action="store_true", help="report what a run would do; write nothing")
    con.add_argument("--half-life-days", type=float, default=None, metavar="D", help="confidence half life (30)")
    con.add_argument("--idle-days", type=float, default=None, metavar="D", help="idle days before decay (7)")
    con.add_argument("--prune-below", type=float, default=None, metavar="C", help="prune threshold (0.05)")
    con.add_argument("--no-merge", action="store_true", help="merge no duplicates")
    con.add_argument(
        "--forget-retrievals-days", type=float, default=None, metavar="D", help="keep retrievals this long (90)"
    )
    for command in (exp, ret, ana):
        command.add_argument("--as-of", metavar="TIME", help="the facts valid then (ISO 8601 time or date)")
        command.add_argument("--known-at", metavar="TIME", help="as the memory knew them then (--as-of too)")
    for command in (exp, ret, ana, imp, con):
        command.add_argument("--pretty", action="store_true", help="indent the JSON")
    return parser


def _import(memory: Memory, path: str, replace: bool) -> dict[str, Any]:
    """Import a file: a dump (read line by line, any size) or a Bendscope document."""
    try:
        handle = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        head = handle.peek(256)[:256] if hasattr(handle, "peek") else b""
        if is_dump(head):
            return memory.import_dump(lines_of(handle), replace=replace)
        data = handle.read(MAX_FILE + 1)
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from None
    finally:
        if handle is not sys.stdin.buffer:
            handle.close()
    if len(data) > MAX_FILE:
        raise InvalidInput(f"{path} is larger than {MAX_FILE // (1024 * 1024)} MB")
    return memory.import_document(data, replace=replace)


def _print_lines(lines: Iterable[str]) -> None:
    """A dump on stdout, a line at a time (never the whole of it in memory as one text)."""
    try:
        out = sys.stdout.buffer
        for line in lines:
            out.write(line.encode("utf-8") + b"\n")
        out.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _print(result: Any, pretty: bool) -> None:
    text = json.dumps(result, ensure_ascii=False, indent=2 if pretty else None)
    try:
        sys.stdout.buffer.write((text + "\n").encode("utf-8"))
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad input or an unusable store)."""
    args = _parser().parse_args(argv)
    try:
        if args.read_only and args.command in ("import", "consolidate"):
            raise InvalidInput(f"{args.command} writes the store: leave out --read-only")
        store = open_store(args.store, pool_size=args.pool_size, read_only=args.read_only)
    except (InvalidInput, StoreUnavailable, OSError) as exc:
        return _fail(str(exc))
    try:
        embedder = load_embedder(args.embedder) if args.embedder else None
        memory = Memory(store, embedder=embedder)
        if getattr(args, "namespace", None) is not None:
            if getattr(args, "dump", False):
                raise InvalidInput("export --dump writes the whole store: leave out --namespace")
            memory = memory.within(check_namespace(args.namespace), sealed=True)
        if embedder is not None and not store.read_only and args.command in ("serve", "import"):
            said = [-1]

            def progress(done: int, total: int) -> None:
                step = done * 10 // max(total, 1)
                if step > said[0]:
                    said[0] = step
                    print(f"memory: embedding {total:,} nodes ({memory.model}): {step * 10}%", file=sys.stderr)

            memory.backfill_vectors(progress)
        if args.command == "serve":
            from .mcp.server import serve_stdio

            where = f"memory: {resolved_from(args.store or os.environ.get(STORE_VARIABLE), store)}"

            if args.http is not None:
                from .web.editor_site import checked_token, token_from_file
                from .web.http import serve_http

                if not 0 <= args.http <= 65535:
                    raise InvalidInput("--http takes a port from 0 to 65535")
                limits = Limits(
                    args.header_timeout, args.body_timeout, args.max_connections, args.max_sessions, args.session_idle
                )
                token = None
                if args.token is not None and args.token_file is not None:
                    raise InvalidInput("give --token or --token-file, not both")
                if args.token is not None:
                    token = checked_token(args.token)
                elif args.token_file is not None:
                    token = token_from_file(args.token_file)
                print(where, file=sys.stderr, flush=True)
                serve_http(memory, args.http, limits=limits.check(), token=token, editor=args.editor)
            else:
                import anyio

                if args.editor or args.token is not None or args.token_file is not None:
                    raise InvalidInput("--editor, --token and --token-file need --http PORT")
                print(where, file=sys.stderr, flush=True)
                anyio.run(serve_stdio, memory)
            return 0
        if args.command == "import":
            result = _import(memory, args.file, args.replace)
        elif args.command == "export" and args.dump and (args.node_ids or args.query is not None or _times(args)):
            raise InvalidInput("--dump writes the whole store, every version: leave out node ids, --query and times")
        elif args.command == "export" and isinstance(store, SQLiteStore) and store.damage is not None:
            if args.node_ids or args.query is not None:
                raise InvalidInput("the store is damaged: export all of it (no node ids, no --query) to rescue it")
            nodes, edges, lost = store.rescue()
            print(
                f"memory: the store is damaged ({store.damage}); rescued {len(nodes):,} nodes and {len(edges):,} "
                f"edges; at most {lost:,} row ids could not be read (an upper bound: the rescue reads on past the "
                "last row it finds)",
                file=sys.stderr,
            )
            if args.dump:
                _print_lines(dump_lines(Dump(nodes, edges)))
                return 0
            if len(nodes) > MAX_NODES:
                raise InvalidInput(
                    f"{len(nodes):,} nodes were rescued and a document holds at most {MAX_NODES:,}: "
                    "export --dump --read-only writes them all (import reads it)"
                )
            result = to_document(nodes, edges)
        elif args.command == "export" and args.dump:
            _print_lines(memory.dump_lines())
            return 0
        elif args.command == "export":
            options: dict[str, Any] = {}
            if args.node_ids:
                options["node_ids"] = args.node_ids
            if args.query is not None:
                options["query"] = args.query
            result = memory.export_document({**options, **_times(args)})
        elif args.command == "retrieve":
            asked = {"query": args.query, "limit": args.limit, "expand_hops": args.hops, **_times(args)}
            result = memory.retrieve_context(asked)
        elif args.command == "consolidate":
            given = {
                "half_life_days": args.half_life_days,
                "idle_days": args.idle_days,
                "prune_below": args.prune_below,
                "forget_retrievals_days": args.forget_retrievals_days,
            }
            options = {key: value for key, value in given.items() if value is not None}
            result = memory.consolidate({**options, "dry_run": args.dry_run, "merge": not args.no_merge})
        else:
            options = {}
            if args.node_ids:
                options["node_ids"] = args.node_ids
            if args.query is not None:
                options["query"] = args.query
            result = memory.analyze_topology({**options, **_times(args)})
    except (InvalidInput, StoreUnavailable) as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"{exc.strerror or exc}")
    except KeyboardInterrupt:
        return 130
    finally:
        store.close()
    _print(result, args.pretty)
    return 0


def _times(args: argparse.Namespace) -> dict[str, str]:
    """The times a reading command was given (``--as-of``, ``--known-at``)."""
    given = {"as_of": getattr(args, "as_of", None), "known_at": getattr(args, "known_at", None)}
    return {key: value for key, value in given.items() if value is not None}


def _fail(message: str) -> int:
    print(f"memory: error: {message}", file=sys.stderr)
    return 2
