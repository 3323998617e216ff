"""``python -m bot`` when it cannot serve: one clear line and a non-zero exit (no token, a
token Telegram refuses, a database it cannot write or that another bot holds), or tries again
with a growing delay (Telegram out of reach), a line each time; on a webhook, it serves until
it is stopped."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp

from bot.serving import SECRET_HEADER
from storage import Store
from testkit.confinement import as_unprivileged
from testkit.dispatcher import free_ports
from testkit.fake_telegram import FakeTelegramServer

ROOT = Path(__file__).resolve().parents[2]


def test_missing_token_is_a_clear_error(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TELEGRAM_BOT_TOKEN"}
    done = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(Path(__file__).parents[2])},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "tavolo: TELEGRAM_BOT_TOKEN is not set; get a token from @BotFather and run "
        "TELEGRAM_BOT_TOKEN=... python -m bot"
    )
    assert not (tmp_path / "tavolo.db").exists()


def bot_env(tmp_path: Path, **env: str) -> dict[str, str]:
    """The environment of ``python -m bot``: a token and a SQLite file in ``tmp_path``, plus
    ``env``."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("WEBHOOK_", "BOT_"))}
    return {
        **base,
        "PYTHONPATH": str(ROOT),
        "TELEGRAM_BOT_TOKEN": "123:abc",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'tavolo.db'}",
        **env,
    }


def run_bot(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m bot`` (see :func:`bot_env`) until it exits."""
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=bot_env(tmp_path, **env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


class Running:
    """A ``python -m bot`` process, its standard error read line by line as it comes."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self._more = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process.stderr is not None
        async for line in self.process.stderr:
            self.lines.append(line.decode().rstrip("\n"))
            self._more.set()
        self._more.set()

    async def said(self, text: str, times: int = 1) -> str:
        """The ``times``-th log line containing ``text`` (without its time), once it comes."""
        async with asyncio.timeout(60):
            while True:
                found = [line for line in self.lines if text in line]
                if len(found) >= times:
                    return found[times - 1].split(" ", 2)[2]
                if self._reader.done():
                    last = "\n".join(self.lines[-10:])
                    raise AssertionError(f"the bot ended without saying {text!r}:\n{last}")
                self._more.clear()
                await self._more.wait()

    async def stop(self) -> int:
        """Stop it as a service manager does (SIGTERM); its exit status."""
        self.process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(60):
            status = await self.process.wait()
            await self._reader
        return status

    async def ended(self) -> tuple[int, str]:
        """Its exit status and everything it wrote to standard error, once it exits alone."""
        async with asyncio.timeout(60):
            status = await self.process.wait()
            await self._reader
        return status, "\n".join(self.lines)


@asynccontextmanager
async def running(tmp_path: Path, **env: str) -> AsyncIterator[Running]:
    """``python -m bot`` (see :func:`bot_env`) running meanwhile; killed if still running."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=tmp_path,
        env=bot_env(tmp_path, **env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    bot = Running(process)
    try:
        yield bot
    finally:
        if process.returncode is None:
            process.kill()
        await bot.ended()


def test_a_webhook_secret_telegram_would_refuse_is_a_clear_error(tmp_path: Path) -> None:
    done = run_bot(tmp_path, WEBHOOK_URL="https://bot.example/hook", WEBHOOK_SECRET="a+b=")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "tavolo: WEBHOOK_SECRET may hold only letters, digits, '_' and '-', at most 256 of them"
    )
    assert not (tmp_path / "tavolo.db").exists()  # nothing opened


def test_a_wrong_number_of_instances_is_a_clear_error(tmp_path: Path) -> None:
    done = run_bot(tmp_path, BOT_INSTANCES="three")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "tavolo: BOT_INSTANCES must be a number of instances, not 'three'"
    )
    assert not (tmp_path / "tavolo.db").exists()


async def test_telegram_out_of_reach_is_tried_again_until_it_answers(tmp_path: Path) -> None:
    """A service that starts before the network (or before a local Bot API server): it once
    ended at once, with a 30-line traceback."""
    port = free_ports(1)[0]
    address = f"http://127.0.0.1:{port}/bot"
    server = FakeTelegramServer(port=port)
    async with running(
        tmp_path, TELEGRAM_BOT_TOKEN=server.token, TELEGRAM_API_BASE_URL=address
    ) as bot:
        for tries, delay in ((1, "1"), (2, "2")):
            line = await bot.said("cannot reach Telegram", tries)
            assert line.startswith(
                f"WARNING bot.serving cannot reach Telegram at {address} (httpx.ConnectError: "
            )
            assert line.endswith(f"); trying again in {delay} s")
        await server.start()
        try:
            await server.wait_for(lambda: server.calls_of("getUpdates"), timeout=60)
            assert await bot.stop() == 0
        finally:
            await server.stop()
    assert not [line for line in bot.lines if "Traceback" in line]


async def test_a_token_telegram_refuses_is_one_line(tmp_path: Path) -> None:
    async with (
        FakeTelegramServer() as server,
        running(
            tmp_path, TELEGRAM_BOT_TOKEN="123:wrong", TELEGRAM_API_BASE_URL=server.base_url
        ) as bot,
    ):
        status, said = await bot.ended()
    assert status == 2
    assert said.splitlines()[-1] == (
        f"tavolo: Telegram at {server.base_url} refused the bot's token: check "
        "TELEGRAM_BOT_TOKEN (from @BotFather) and TELEGRAM_API_BASE_URL"
    )
    assert "Traceback" not in said
    assert "wrong" not in said  # nor the token


async def test_a_second_bot_on_the_same_sqlite_file_refuses_to_start(tmp_path: Path) -> None:
    """It once started, and the two fought over getUpdates (409 Conflict) for as long as
    they ran."""
    async with FakeTelegramServer() as server:
        env = {"TELEGRAM_BOT_TOKEN": server.token, "TELEGRAM_API_BASE_URL": server.base_url}
        async with running(tmp_path, **env) as first:
            await server.wait_for(lambda: server.calls_of("getUpdates"), timeout=60)
            async with running(tmp_path, **env) as second:
                status, said = await second.ended()
            assert status == 1
            assert said == (
                f"tavolo: {tmp_path / 'tavolo.db'}: another Tavolo (process "
                f"{first.process.pid}) is using this database. SQLite is for one process: stop "
                "that one first, or use PostgreSQL to run several (README, Deployment)"
            )
            assert await first.stop() == 0


def test_a_database_file_it_may_not_write_stops_it_at_start(tmp_path: Path) -> None:
    """It once started, and answered every move "Something went wrong"."""
    database = tmp_path / "tavolo.db"
    Store.open(f"sqlite:///{database}").close()
    database.chmod(0o444)
    try:
        done = subprocess.run(
            as_unprivileged([sys.executable, "-m", "bot"]),
            cwd=tmp_path,
            env=bot_env(tmp_path, TELEGRAM_API_BASE_URL="http://127.0.0.1:9/bot"),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        database.chmod(0o644)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        f"tavolo: {database}: cannot write the database (attempt to write a readonly "
        f"database): this process may not write {database}: give it write permission"
    )
    assert "cannot reach Telegram" not in done.stderr  # it stopped before


async def test_on_a_webhook_it_takes_updates_refuses_what_is_none_and_stops(
    tmp_path: Path,
) -> None:
    """``python -m bot`` with WEBHOOK_URL serves its own webhook: the fake Bot API posts an
    update to it (answered), a body that is no update gets 400, and SIGTERM stops it cleanly."""
    port = free_ports(1)[0]
    async with FakeTelegramServer() as server:
        env = {
            "TELEGRAM_BOT_TOKEN": server.token,
            "TELEGRAM_API_BASE_URL": server.base_url,
            "WEBHOOK_URL": f"http://127.0.0.1:{port}/hook",
            "WEBHOOK_LISTEN": "127.0.0.1",
            "PORT": str(port),
            "WEBHOOK_SECRET": "s3cr3t",
        }
        async with running(tmp_path, **env) as bot:
            await server.wait_for(lambda: server.webhook_url == env["WEBHOOK_URL"], timeout=60)
            server.add_user(1001, "Anna").start_private()
            greeting = await server.wait_for(
                lambda: server.last_message(1001, from_bot=True), timeout=60
            )
            assert greeting.text.startswith("Ciao Anna!")
            headers = {"Content-Type": "application/json", SECRET_HEADER: "s3cr3t"}
            async with (
                aiohttp.ClientSession() as session,
                session.post(env["WEBHOOK_URL"], data=b"{", headers=headers) as response,
            ):
                assert response.status == 400
            assert await bot.stop() == 0
