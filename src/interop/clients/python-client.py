"""Interop client for the official Python MCP SDK (`mcp`, pinned in requirements.txt).

The contract (environment in, JSON lines out) is src/interop/clients/README.md. Runs as
`.tools/venv/bin/python src/interop/clients/python-client.py`; takes no arguments.

The client is the SDK's own high-level `mcp.Client` (which drives a `ClientSession` with our
`message_handler`) over `streamable_http_client` or `stdio_client`. INTEROP_MODE=http,stdio runs the whole
script for both transports at once in this one process (one anyio task each, each with its own clients); every
line carries the `mode` it belongs to (a fatal before either mode started has none).
- INTEROP_REVISION=default: the SDK's default connect policy (`mode="auto"`: probe
  `server/discover` at 2026-07-28, fall back to the `initialize` handshake).
- a modern revision (2026-07-28): `mode=<revision>`, the SDK's version pin ("pinned": true).
- 2025-11-25: `mode="legacy"`, whose handshake offers exactly 2025-11-25 ("pinned": true).
- an older handshake-era revision: the SDK cannot be told to offer it (it always offers its newest
  handshake revision and accepts the server's counter-offer), so `mode="legacy"`, "pinned": false.
"""

import time

_T0 = time.perf_counter()

import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402


def _now_ms() -> float:
    return (time.perf_counter() - _T0) * 1000.0


def emit(step: str, mode: str | None = None, **fields: object) -> None:
    """One whole JSON line, written with one write call (the modes run as tasks of one event loop, so a line
    is never split; and one write keeps it whole for the reader too)."""
    line: dict = {"step": step, "at": round(_now_ms(), 1)}
    if mode is not None:
        line["mode"] = mode
    line.update(fields)
    sys.stdout.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def fatal(message: str) -> None:
    emit("fatal", error=message)
    sys.exit(1)


MODES_KNOWN = ("http", "stdio")


def parse_modes(value: str, variable: str) -> list[str]:
    """A comma list of modes (`http`, `stdio`), in order, without repeats; raises ValueError."""
    modes: list[str] = []
    for part in value.split(","):
        part = part.strip()
        if part not in MODES_KNOWN:
            raise ValueError(f"{variable} must be http, stdio or http,stdio, got {value!r}")
        if part not in modes:
            modes.append(part)
    return modes

# The SDK's imports come before the first line (they take a second or two: the harness allows for that
# before a first line, and a step's deadline after one).
try:
    from importlib.metadata import version

    SDK_VERSION = version("mcp")
    import anyio
    import httpx2
    import mcp_types as types
    from mcp import Client, MCPError
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.dispatcher import coerce_request_id
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_PROTOCOL_VERSIONS
except Exception as exc:  # a missing or broken SDK
    fatal(f"cannot load the Python MCP SDK (package mcp): {type(exc).__name__}: {exc}")


AFTER_RESULT_WAIT_S = 0.1
TEXT_LIMIT = 500


def error_text(exc: BaseException) -> str:
    """The SDK's error text; an exception group is unwrapped to its leaves."""
    inner = getattr(exc, "exceptions", None)  # an exception group (builtin from 3.11; anyio's backport on 3.10)
    if isinstance(inner, tuple) and inner and all(isinstance(e, BaseException) for e in inner):
        return "; ".join(error_text(e) for e in inner)
    text = str(exc)
    name = type(exc).__name__
    if isinstance(exc, MCPError) and text:
        return text  # the SDK's own error (a JSON-RPC error, or one it synthesized from the HTTP status)
    return f"{name}: {text}" if text else name


def number(x: float | None) -> float | int | None:
    if isinstance(x, float) and x.is_integer():
        return int(x)
    return x


def parse_config(modes: list[str]) -> dict:
    """Reads the environment for the given modes; raises ValueError with a message naming the bad variable."""
    cfg: dict = {"modes": modes}
    try:
        plan = json.loads(os.environ.get("INTEROP_PLAN", ""))
    except ValueError as exc:
        raise ValueError(f"INTEROP_PLAN is not JSON: {exc}") from None
    if not isinstance(plan, dict) or not isinstance(plan.get("calls", []), list):
        raise ValueError("INTEROP_PLAN must be an object with a calls array")
    timeout_ms = plan.get("timeoutMs", 30000)
    if not isinstance(timeout_ms, (int, float)) or isinstance(timeout_ms, bool) or timeout_ms <= 0:
        raise ValueError("INTEROP_PLAN.timeoutMs must be a positive number")
    cfg["calls"] = plan.get("calls", [])
    cfg["timeout"] = timeout_ms / 1000.0
    cfg["key"] = os.environ.get("MCP_API_KEY") or None
    cfg["bad_key"] = os.environ.get("INTEROP_BAD_KEY") or None
    # Unset (or empty): the bad-key step runs in every mode that runs.
    bad_key_modes = os.environ.get("INTEROP_BAD_KEY_MODES", "").strip()
    cfg["bad_key_modes"] = parse_modes(bad_key_modes, "INTEROP_BAD_KEY_MODES") if bad_key_modes else list(modes)
    cfg["revision"] = os.environ.get("INTEROP_REVISION", "default") or "default"
    if "http" in modes:
        cfg["url"] = os.environ.get("INTEROP_URL", "")
        if not cfg["url"]:
            raise ValueError("INTEROP_URL is required in http mode")
        try:
            headers = json.loads(os.environ.get("INTEROP_HEADERS") or "{}")
        except ValueError:
            raise ValueError("INTEROP_HEADERS is not JSON") from None  # never echo its value
        if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
            raise ValueError("INTEROP_HEADERS must be a JSON object of strings")
        cfg["headers"] = headers
    if "stdio" in modes:
        try:
            stdio = json.loads(os.environ.get("INTEROP_STDIO", ""))
        except ValueError as exc:
            raise ValueError(f"INTEROP_STDIO is not JSON: {exc}") from None
        if not isinstance(stdio, dict) or not isinstance(stdio.get("command"), str):
            raise ValueError("INTEROP_STDIO must be an object with a command")
        cfg["stdio"] = stdio
    return cfg


def connect_mode(revision: str) -> tuple[str, bool]:
    """The `Client(mode=...)` for the asked revision, and whether that pins it."""
    if revision == "default":
        return "auto", False
    if revision in MODERN_PROTOCOL_VERSIONS:
        return revision, True
    if revision == LATEST_HANDSHAKE_VERSION:
        return "legacy", True
    # Older handshake revisions (and unknown strings): the SDK offers only its newest handshake revision.
    return "legacy" if revision in HANDSHAKE_PROTOCOL_VERSIONS else "auto", False


class CallRecord:
    """Progress of the call in flight, from the SDK's progress callback and its message_handler tee."""

    def __init__(self, sent: float) -> None:
        self.sent = sent
        self.result_at: float | None = None
        self.progress: list[dict] = []
        self.callbacks = 0
        # Every notifications/progress the session surfaced to message_handler while this call was current:
        # (token, entry). Those the callback also saw are dropped after the call; the rest came after the result.
        self.teed: list[tuple[object, dict]] = []
        # The request id the SDK will give the call (it doubles as the progress token), when readable.
        self.token: object = None


class Runner:
    """The whole script over one transport (`mode`); its lines carry that mode."""

    def __init__(self, cfg: dict, mode: str) -> None:
        self.cfg = cfg
        self.mode = mode
        self.current: CallRecord | None = None

    def emit(self, step: str, **fields: object) -> None:
        emit(step, self.mode, **fields)

    # --- what the SDK surfaces outside requests -------------------------------------------------------------
    async def message_handler(self, message: object) -> None:
        if isinstance(message, Exception):
            self.emit("transport-error", error=error_text(message))
            return
        if isinstance(message, types.ProgressNotification):
            rec = self.current
            if rec is None:
                return
            p = message.params
            now = time.perf_counter()
            entry = {"progress": number(p.progress), "total": number(p.total), "at": round((now - rec.sent) * 1000, 1)}
            rec.teed.append((p.progress_token, entry))

    def progress_callback(self, rec: CallRecord):
        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            now = time.perf_counter()
            rec.callbacks += 1
            rec.progress.append({"progress": number(progress), "total": number(total),
                                 "at": round((now - rec.sent) * 1000, 1), "afterResult": rec.result_at is not None})

        return on_progress

    def late_progress(self, rec: CallRecord) -> list[dict]:
        """Progress for this call that the SDK surfaced only to message_handler: it arrived after the result.

        The SDK uses the request id as the progress token and routes a notification to the callback while
        the request is pending (a numeric string token correlates with a numeric id, as the SDK coerces it);
        every notification is also teed to message_handler, in arrival order. So of the teed notifications
        carrying this call's token, the first `callbacks` are the ones the callback saw; the rest came late.
        """
        tokens = [coerce_request_id(tok) for tok, _ in rec.teed]
        mine = rec.token
        if mine is None:  # the SDK's id counter was not readable: the token seen most often
            mine = max(set(tokens), key=tokens.count) if tokens else None
        matching = [entry for tok, (_, entry) in zip(tokens, rec.teed) if tok == mine]
        return [dict(entry, afterResult=True) for entry in matching[rec.callbacks:]]

    # --- building a client as an agent would ----------------------------------------------------------------
    def transport(self, key: str | None):
        cfg = self.cfg
        if self.mode == "http":
            headers = dict(cfg["headers"])
            if key is not None:
                headers["Authorization"] = f"Bearer {key}"
            http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0))
            return http, streamable_http_client(cfg["url"], http_client=http)
        stdio = cfg["stdio"]
        env = dict(os.environ)
        env.update({str(k): str(v) for k, v in (stdio.get("env") or {}).items()})
        key_env = stdio.get("keyEnv")
        if key_env:
            env.pop(key_env, None)
            if key is not None:
                env[key_env] = key
        params = StdioServerParameters(command=stdio["command"], args=[str(a) for a in stdio.get("args") or []], env=env)
        return None, stdio_client(params, errlog=sys.stderr)

    def client(self, key: str | None, mode: str, handler) -> tuple[object, Client]:
        http, transport = self.transport(key)
        return http, Client(transport, mode=mode, message_handler=handler,
                            client_info=types.Implementation(name="interop-python", version=SDK_VERSION))

    # --- the steps ----------------------------------------------------------------------------------------------
    async def run(self) -> None:
        cfg = self.cfg
        timeout = cfg["timeout"]
        mode, pinned = connect_mode(cfg["revision"])
        http, client = self.client(cfg["key"], mode, self.message_handler)
        # One cancel scope spans the connection's life (anyio scopes must nest with the transport's task
        # groups): its deadline bounds the connect, is lifted for the steps (each has its own), and bounds the close.
        scope = anyio.CancelScope(deadline=anyio.current_time() + timeout)
        connected = False
        connect_error: str | None = None
        try:
            with scope:
                try:
                    async with client:
                        connected = True
                        scope.deadline = float("inf")
                        self.emit("connect", ok=True, protocolVersion=client.protocol_version, pinned=pinned)
                        await self.list_step(client, timeout)
                        for call in cfg["calls"]:
                            await self.call_step(client, call, timeout)
                        await self.bad_key_step(mode, timeout)
                        scope.deadline = anyio.current_time() + timeout
                except Exception as exc:  # the SDK raised while connecting (or, rarely, after: while closing)
                    if not connected:
                        connect_error = error_text(exc)
                    else:
                        self.emit("transport-error", error=f"after connecting: {error_text(exc)}")
            if scope.cancelled_caught:
                if not connected:
                    connect_error = f"connect timed out after {round(timeout * 1000)} ms"
                else:
                    self.emit("transport-error", error=f"close timed out after {round(timeout * 1000)} ms")
        finally:
            if http is not None:
                with anyio.move_on_after(2, shield=True):
                    await http.aclose()
        if not connected:
            self.emit("connect", ok=False, error=connect_error or "connect failed")
            await self.bad_key_step(mode, timeout)
        self.emit("close", ok=True)

    async def list_step(self, client: Client, timeout: float) -> None:
        try:
            names: list[str] = []
            with anyio.fail_after(timeout):
                cursor = None
                for _ in range(100):
                    page = await client.list_tools(cursor=cursor) if cursor else await client.list_tools()
                    names.extend(tool.name for tool in page.tools)
                    cursor = page.next_cursor
                    if not cursor:
                        break
                else:
                    # An agent never gets the whole list: not a list the client can use.
                    raise RuntimeError("tools/list still had a nextCursor after 100 pages")
            self.emit("list", ok=True, tools=names)
        except TimeoutError:
            self.emit("list", ok=False, error=f"tools/list timed out after {round(timeout * 1000)} ms")
        except Exception as exc:
            self.emit("list", ok=False, error=error_text(exc))

    async def call_step(self, client: Client, call: dict, timeout: float) -> None:
        tool = call.get("tool") if isinstance(call, dict) else None
        arguments = call.get("arguments") if isinstance(call, dict) else None
        if not isinstance(tool, str):
            self.emit("call", tool=tool, ok=False, error="plan entry has no tool name")
            return
        rec = CallRecord(time.perf_counter())
        next_id = getattr(getattr(client.session, "_dispatcher", None), "_next_id", None)
        if isinstance(next_id, int):
            rec.token = next_id + 1
        self.current = rec
        line: dict = {}
        try:
            # The SDK's read timeout (its own error text, and a courtesy cancel) inside a hard bound.
            with anyio.fail_after(timeout + 1):
                result = await client.call_tool(tool, arguments if isinstance(arguments, dict) else {},
                                                read_timeout_seconds=timeout,
                                                progress_callback=self.progress_callback(rec))
            rec.result_at = time.perf_counter()
            text = next((c.text for c in result.content if getattr(c, "type", None) == "text"), None)
            line.update(ok=True, resultAt=round((rec.result_at - rec.sent) * 1000, 1), isError=bool(result.is_error))
            if text is not None:
                line["text"] = text[:TEXT_LIMIT]
        except TimeoutError:
            rec.result_at = time.perf_counter()
            line.update(ok=False, error=f"tools/call timed out after {round(timeout * 1000)} ms")
        except Exception as exc:
            rec.result_at = time.perf_counter()
            line.update(ok=False, error=error_text(exc))
        await anyio.sleep(AFTER_RESULT_WAIT_S)
        self.current = None
        progress = rec.progress + self.late_progress(rec)
        self.emit("call", tool=tool, ok=line.pop("ok"), progress=progress, **line)

    async def bad_key_step(self, mode: str, timeout: float) -> None:
        bad = self.cfg["bad_key"]
        if not bad:
            self.emit("bad-key", skipped="no bad key given")
            return
        if self.mode not in self.cfg["bad_key_modes"]:
            self.emit("bad-key", skipped="not asked in this mode")
            return

        async def bad_key_handler(message: object) -> None:
            if isinstance(message, Exception):
                self.emit("transport-error", error=f"bad-key client: {error_text(message)}")

        http, client = self.client(bad, mode, bad_key_handler)
        outcome: dict = {}
        try:
            with anyio.move_on_after(timeout) as scope:
                try:
                    async with client:
                        await client.list_tools()
                        outcome = {"ok": False, "accepted": True}
                except Exception as exc:
                    outcome = {"ok": True, "error": error_text(exc)}
            if scope.cancelled_caught and not outcome:
                outcome = {"ok": False, "error": f"bad-key step timed out after {round(timeout * 1000)} ms"}
        finally:
            if http is not None:
                with anyio.move_on_after(2, shield=True):
                    await http.aclose()
        self.emit("bad-key", **outcome)


async def run_mode(cfg: dict, mode: str, failed: list[str]) -> None:
    """One mode's script; an unexpected error ends that mode with a fatal line, not the other mode."""
    runner = Runner(cfg, mode)
    try:
        await runner.run()
    except Exception as exc:  # noqa: BLE001 - the contract wants a line, not a traceback
        failed.append(mode)
        runner.emit("fatal", error=error_text(exc))


async def main() -> int:
    try:
        modes = parse_modes(os.environ.get("INTEROP_MODE", ""), "INTEROP_MODE")
    except ValueError as exc:
        emit("start", client="python", sdk="mcp", version=SDK_VERSION)  # no mode to tag it with
        emit("fatal", error=str(exc))
        return 1
    for mode in modes:
        emit("start", mode, client="python", sdk="mcp", version=SDK_VERSION)
    try:
        cfg = parse_config(modes)
    except ValueError as exc:
        emit("fatal", error=str(exc))  # bad input: before either mode started, so no mode
        return 1
    failed: list[str] = []
    async with anyio.create_task_group() as tg:
        for mode in modes:
            tg.start_soon(run_mode, cfg, mode, failed)
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        code = anyio.run(main)
    except KeyboardInterrupt:
        code = 130
    except BaseException as exc:  # noqa: BLE001 - the contract wants a line, not a traceback on stdout
        emit("fatal", error=error_text(exc))
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    # Everything is closed by now (the transports, the stdio child); skip the interpreter's slow teardown.
    os._exit(code)
