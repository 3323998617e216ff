"""Self-tests of the fake Telegram server, driving a tiny real python-telegram-bot Application."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllChatAdministrators,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeChat,
    BotCommandScopeChatAdministrators,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    ReplyParameters,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Conflict, Forbidden, RetryAfter
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from testkit.fake_telegram import (
    ERR_BLOCKED,
    ERR_CANT_INITIATE,
    ERR_NOT_MODIFIED,
    ERR_QUERY_INVALID,
    FakeTelegramServer,
    HtmlParseError,
    detect_entities,
    parse_html,
    validate_reply_markup,
)

pytestmark = pytest.mark.filterwarnings("error")

ALICE, BOB, CARLA = 1001, 1002, 1003
GROUP = -4001
PONG_MARKUP = InlineKeyboardMarkup([[InlineKeyboardButton("Ancora", callback_data="again")]])


def build_ping_app(
    server: FakeTelegramServer,
) -> tuple[Application[Any, Any, Any, Any, Any, Any], list[BaseException]]:
    """/ping replies "pong" with a button; the button answers "ok" and edits the message."""
    errors: list[BaseException] = []
    app = server.application_builder().build()

    async def ping(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message is not None
        await update.effective_message.reply_text("pong", reply_markup=PONG_MARKUP)

    async def again(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None
        await query.answer("ok")
        await query.edit_message_text(
            "<b>pong</b> again", parse_mode=ParseMode.HTML, reply_markup=PONG_MARKUP
        )

    async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert context.error is not None
        errors.append(context.error)

    app.add_handler(CommandHandler("ping", ping))
    app.add_handler(CallbackQueryHandler(again, pattern="^again$"))
    app.add_error_handler(on_error)
    return app, errors


async def test_ping_pong_over_long_polling(fake_telegram: FakeTelegramServer) -> None:
    server = fake_telegram
    alice = server.add_user(ALICE, "Alice", username="alice")
    app, errors = build_ping_app(server)

    async with server.run(app):
        assert [c.method for c in server.calls[:2]] == ["getMe", "deleteWebhook"]
        alice.start_private()
        alice.send(ALICE, "/ping")
        await server.wait_idle()

        pong = server.last_message(ALICE)
        assert pong is not None and pong.from_bot
        assert pong.text == "pong"
        assert pong.keyboard == [["Ancora"]]
        assert pong.reply_to is None
        assert [m.text for m in server.messages(ALICE)] == ["/start", "/ping", "pong"]
        send = server.calls_of("sendMessage")[0]
        assert send.params["chat_id"] == ALICE and send.ok

        press = alice.press(ALICE, pong.message_id, "again")
        answer = await press.answered()
        assert answer["text"] == "ok" and answer["show_alert"] is False
        await server.wait_idle()
        edited = server.message(ALICE, pong.message_id)
        assert edited is not None
        assert edited.text == "pong again"
        assert edited.entities == [{"type": "bold", "offset": 0, "length": 4}]
        assert edited.source == "<b>pong</b> again"
        assert edited.keyboard == [["Ancora"]]
        assert edited.edit_date is not None
        assert errors == []

        # Pressing again makes the very same edit: Telegram refuses it.
        second = alice.press_button(ALICE, pong.message_id, "Ancora")
        assert (await second.answered())["text"] == "ok"
        await server.wait_idle()
        assert len(errors) == 1 and isinstance(errors[0], BadRequest)
        assert str(errors[0]).startswith("Message is not modified")
        failed = server.calls_of("editMessageText")[-1]
        assert failed.status == 400 and failed.error == ERR_NOT_MODIFIED
        assert server.unanswered_callbacks() == []

        # The same callback query cannot be answered twice.
        with pytest.raises(BadRequest, match="Query is too old"):
            await app.bot.answer_callback_query(second.id, text="again")
        assert server.calls_of("answerCallbackQuery")[-1].error == ERR_QUERY_INVALID

    methods = [c.method for c in server.calls]
    assert methods[-1] == "getUpdates"  # PTB's last call marks the fetched updates as read
    assert server.pending_updates() == []
    assert all(c.done for c in server.calls)


async def test_updates_offsets_and_long_polling(fake_telegram: FakeTelegramServer) -> None:
    server = fake_telegram
    alice = server.add_user(ALICE, "Alice")
    async with Bot(server.token, base_url=server.base_url) as bot:
        assert server.calls_of("getMe")[0].result["username"] == server.bot_username
        alice.start_private()
        alice.send(ALICE, "uno")
        alice.send(ALICE, "due")
        first = await bot.get_updates(timeout=0)
        assert [u.message.text for u in first if u.message] == ["/start", "uno", "due"]
        assert first[0].message is not None and first[0].message.entities[0].type == "bot_command"
        # Without an offset nothing is confirmed: the same updates again.
        again = await bot.get_updates(timeout=0)
        assert [u.update_id for u in again] == [u.update_id for u in first]
        # limit
        assert len(await bot.get_updates(timeout=0, limit=1)) == 1
        # offset = last + 1 confirms everything.
        assert await bot.get_updates(offset=first[-1].update_id + 1, timeout=0) == ()
        assert server.pending_updates() == []

        # Long polling wakes up as soon as an update arrives (no sleeping).
        poll = asyncio.create_task(bot.get_updates(offset=first[-1].update_id + 1, timeout=30))
        await server.wait_for(lambda: server._parked)
        alice.send(ALICE, "tre")
        got = await poll
        assert [u.message.text for u in got if u.message] == ["tre"]
        assert got[0].update_id == first[-1].update_id + 1

        # A negative offset keeps only the last updates.
        alice.send(ALICE, "quattro")
        alice.send(ALICE, "cinque")
        last = await bot.get_updates(offset=-1, timeout=0)
        assert [u.message.text for u in last if u.message] == ["cinque"]
        assert len(server.pending_updates()) == 1

        # An expired long poll returns an empty list.
        assert await bot.get_updates(offset=last[-1].update_id + 1, timeout=1) == ()


async def test_limits_and_html_over_http(fake_telegram: FakeTelegramServer) -> None:
    server = fake_telegram
    server.flood = None  # many messages at once: the flood limits have their own test
    alice = server.add_user(ALICE, "Alice")
    bob = server.add_user(BOB, "Bob")
    alice.start_private()
    async with Bot(server.token, base_url=server.base_url) as bot:
        ok = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="è" * 32)]])
        assert (await bot.send_message(ALICE, "ok", reply_markup=ok)).message_id == 2
        too_long = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="è" * 33)]])
        with pytest.raises(BadRequest, match="Button_data_invalid"):
            await bot.send_message(ALICE, "no", reply_markup=too_long)
        wide = InlineKeyboardMarkup(
            [[InlineKeyboardButton(str(i), callback_data=str(i)) for i in range(9)]]
        )
        with pytest.raises(BadRequest, match="Too many buttons in a row"):
            await bot.send_message(ALICE, "no", reply_markup=wide)
        tall = InlineKeyboardMarkup(
            [[InlineKeyboardButton(str(i), callback_data=str(i))] for i in range(101)]
        )
        with pytest.raises(BadRequest, match="Reply markup is too long"):
            await bot.send_message(ALICE, "no", reply_markup=tall)
        with pytest.raises(BadRequest, match="Can't parse entities: unsupported start tag"):
            await bot.send_message(ALICE, "<div>x</div>", parse_mode=ParseMode.HTML)
        with pytest.raises(BadRequest, match="Can't parse entities"):
            await bot.send_message(ALICE, "3 < 4", parse_mode=ParseMode.HTML)
        with pytest.raises(BadRequest, match="Message is too long"):
            await bot.send_message(ALICE, "a" * 4097)
        assert (
            await bot.send_message(ALICE, "<b>" + "a" * 4096 + "</b>", parse_mode=ParseMode.HTML)
        ).text == "a" * 4096
        with pytest.raises(BadRequest, match="Message text is empty"):
            await bot.send_message(ALICE, "<b> </b>", parse_mode=ParseMode.HTML)
        msg = await bot.send_message(
            ALICE, "  ciao <i>mondo</i> &amp; 🂡 <b>x</b>\n", parse_mode=ParseMode.HTML
        )
        assert msg.text == "ciao mondo & 🂡 x"
        assert [(e.type, e.offset, e.length) for e in msg.entities] == [
            ("italic", 5, 5),
            ("bold", 16, 1),
        ]  # 🂡 is 2 UTF-16 units

        with pytest.raises(BadRequest, match="Message to edit not found"):
            await bot.edit_message_text("x", chat_id=ALICE, message_id=999)
        with pytest.raises(BadRequest, match="Message can't be edited"):
            await bot.edit_message_text("x", chat_id=ALICE, message_id=1)  # Alice's /start
        with pytest.raises(BadRequest, match="Message to delete not found"):
            await bot.delete_message(ALICE, 999)
        with pytest.raises(BadRequest, match="Query is too old"):
            await bot.answer_callback_query("12345", text="?")
        press = alice.press(ALICE, 2, "è" * 32)
        with pytest.raises(BadRequest, match="Message_too_long"):
            await bot.answer_callback_query(press.id, text="x" * 201)
        assert await bot.answer_callback_query(press.id, text="x" * 200)
        assert (await press.answered())["text"] == "x" * 200

        # Editing the keyboard only; identical markup is "not modified"; no markup removes it.
        markup = InlineKeyboardMarkup([[InlineKeyboardButton("a", callback_data="a")]])
        await bot.edit_message_reply_markup(ALICE, 2, reply_markup=markup)
        with pytest.raises(BadRequest, match="Message is not modified"):
            await bot.edit_message_reply_markup(ALICE, 2, reply_markup=markup)
        await bot.edit_message_text("no keyboard", chat_id=ALICE, message_id=2)
        assert server.message(ALICE, 2).reply_markup is None  # type: ignore[union-attr]
        assert await bot.delete_message(ALICE, 2)
        assert server.message(ALICE, 2).deleted  # type: ignore[union-attr]
        assert 2 not in [m.message_id for m in server.messages(ALICE)]

        # Private chats: never started -> 403; blocked -> 403 and a my_chat_member update.
        with pytest.raises(Forbidden) as never:
            await bot.send_message(BOB, "ciao")
        assert never.value.message == ERR_CANT_INITIATE
        bob.start_private("j123")
        assert server.last_message(BOB).text == "/start j123"  # type: ignore[union-attr]
        assert await bot.send_message(BOB, "ciao")
        bob.block_bot()
        with pytest.raises(Forbidden) as blocked:
            await bot.send_message(BOB, "ciao")
        assert blocked.value.message == ERR_BLOCKED
        kinds = [next(k for k in u if k != "update_id") for u in server.pending_updates()]
        assert kinds[-1] == "my_chat_member"
        with pytest.raises(BadRequest, match="Chat not found"):
            await bot.send_message(424242, "chi?")


async def test_forum_topics(fake_telegram: FakeTelegramServer) -> None:
    """A forum's topics as the Bot API has them: a message sent to a topic is in it (and
    says so), a reply without a topic goes to its message's, an unknown topic (or one in a
    group without topics) is "message thread not found", and a reply to a message of another
    topic does not find it."""
    server = fake_telegram
    alice = server.add_user(ALICE, "Alice")
    server.add_group(-1001234, "Forum", members=[ALICE], forum=True)
    server.add_group(-1005678, "Plain", members=[ALICE], supergroup=True)
    games, chat = server.add_topic(-1001234, "Games"), server.add_topic(-1001234, "Chat")
    said = alice.send(-1001234, "/punti", thread=games)
    update = server.pop_updates()[-1]["message"]
    assert (update["message_thread_id"], update["is_topic_message"]) == (games, True)
    assert update["chat"]["is_forum"] is True
    async with Bot(server.token, base_url=server.base_url) as bot:
        sent = await bot.send_message(-1001234, "in Games", message_thread_id=games)
        assert (sent.message_thread_id, sent.is_topic_message) == (games, True)
        reply = await bot.send_message(
            -1001234, "a reply", reply_parameters=ReplyParameters(said.message_id)
        )
        assert reply.message_thread_id == games
        general = await bot.send_message(-1001234, "in General")
        assert general.message_thread_id is None and not general.is_topic_message
        for chat_id, thread in ((-1001234, 999), (-1005678, games)):
            with pytest.raises(BadRequest, match="Message thread not found"):
                await bot.send_message(chat_id, "no", message_thread_id=thread)
        with pytest.raises(BadRequest, match="Message to be replied not found"):
            await bot.send_message(
                -1001234,
                "elsewhere",
                message_thread_id=chat,
                reply_parameters=ReplyParameters(said.message_id),
            )
        with pytest.raises(BadRequest, match="Not enough rights to create a topic"):
            await bot.create_forum_topic(-1001234, "Tavolo 2")
        with pytest.raises(BadRequest, match="The chat is not a forum"):
            await bot.create_forum_topic(-1005678, "Tavolo 2")
        server.chat(-1001234).bot_status = "administrator"
        server.chat(-1001234).bot_manages_topics = True
        member = await bot.get_chat_member(-1001234, server.bot_id)
        assert getattr(member, "can_manage_topics", None) is True
        topic = await bot.create_forum_topic(-1001234, "Tavolo 2")
        assert topic.name == "Tavolo 2" and server.chat(-1001234).topics[topic.message_thread_id]
        sent = await bot.send_message(-1001234, "qui", message_thread_id=topic.message_thread_id)
        assert sent.message_thread_id == topic.message_thread_id
        server.delete_topic(-1001234, topic.message_thread_id)
        with pytest.raises(BadRequest, match="Message thread not found"):
            await bot.send_message(-1001234, "no", message_thread_id=topic.message_thread_id)


async def test_groups_privacy_migration_and_removal(fake_telegram: FakeTelegramServer) -> None:
    server = fake_telegram
    alice = server.add_user(ALICE, "Alice")
    bob = server.add_user(BOB, "Bob")
    carla = server.add_user(CARLA, "Carla")
    group = server.add_group(GROUP, "Tavolo", members=[bob, carla], admins=[alice])
    seen: list[str] = []
    app = server.application_builder().build()

    async def on_text(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message is not None
        seen.append(update.effective_message.text or "")

    async def on_status(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message is not None
        msg = update.effective_message
        if msg.migrate_to_chat_id:
            seen.append(f"migrate_to {msg.migrate_to_chat_id}")
        elif msg.migrate_from_chat_id:
            seen.append(f"migrate_from {msg.migrate_from_chat_id}")
        elif msg.left_chat_member:
            seen.append(f"left {msg.left_chat_member.id}")

    async def on_my_member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.my_chat_member is not None
        seen.append(f"bot {update.my_chat_member.new_chat_member.status}")

    app.add_handler(MessageHandler(filters.TEXT, on_text))
    app.add_handler(MessageHandler(filters.StatusUpdate.ALL, on_status))
    app.add_handler(ChatMemberHandler(on_my_member, ChatMemberHandler.MY_CHAT_MEMBER))

    async with server.run(app, polling=False):
        bob.send(GROUP, "hello everyone")  # privacy mode: not delivered
        bob.send(GROUP, "/gioca@other_bot")  # another bot's command: not delivered
        bob.send(GROUP, f"/gioca@{server.bot_username} scopone")
        bob.send(GROUP, "/regole")
        carla.leave_group(GROUP)
        assert await server.feed() == 3
        assert seen == [f"/gioca@{server.bot_username} scopone", "/regole", f"left {CARLA}"]
        cmd = server.messages(GROUP)[2]
        assert cmd.entities == [{"type": "bot_command", "offset": 0, "length": 22}]
        assert detect_entities("ciao /start@bot x") == [
            {"type": "bot_command", "offset": 5, "length": 10}
        ]

        members = await app.bot.get_chat_administrators(GROUP)
        assert [(m.user.id, m.status) for m in members] == [(ALICE, "creator")]
        assert (await app.bot.get_chat_member(GROUP, BOB)).status == "member"
        assert (await app.bot.get_chat_member(GROUP, CARLA)).status == "left"
        assert (await app.bot.get_chat(GROUP)).title == "Tavolo"

        super_id = -1001234567890
        supergroup = group.migrate_to_supergroup(super_id)
        seen.clear()
        assert await server.feed() == 2
        assert seen == [f"migrate_to {super_id}", f"migrate_from {GROUP}"]
        with pytest.raises(ChatMigrated) as migrated:
            await app.bot.send_message(GROUP, "ciao")
        assert migrated.value.new_chat_id == super_id
        assert (await app.bot.send_message(super_id, "ciao")).chat.type == "supergroup"

        seen.clear()
        supergroup.remove_bot()
        assert await server.feed() == 1
        assert seen == ["bot kicked"]
        with pytest.raises(Forbidden, match="kicked from the supergroup chat"):
            await app.bot.send_message(super_id, "ciao")


async def test_command_menus_follow_telegrams_scopes_and_languages(
    fake_telegram: FakeTelegramServer,
) -> None:
    server = fake_telegram
    alice = server.add_user(ALICE, "Alice", language_code="it")
    bob = server.add_user(ALICE + 1, "Bob", language_code="en-GB")
    for user in (alice, bob):
        user.start_private()
    server.add_group(GROUP, "Amici", members=[bob], admins=[alice])
    async with Bot(server.token, base_url=server.base_url) as bot:
        await bot.set_my_commands([("help", "Help")])
        assert server.menu(ALICE, alice) == [{"command": "help", "description": "Help"}]
        await bot.set_my_commands(
            [("nuova", "Nuova")], scope=BotCommandScopeAllPrivateChats(), language_code="it"
        )
        await bot.set_my_commands([("newgame", "New")], scope=BotCommandScopeAllPrivateChats())
        await bot.set_my_commands([("stop", "Stop")], scope=BotCommandScopeAllChatAdministrators())
        assert [c["command"] for c in server.menu(ALICE, alice)] == ["nuova"]
        assert [c["command"] for c in server.menu(bob.id, bob)] == ["newgame"]
        assert [c["command"] for c in server.menu(GROUP, alice)] == ["stop"]  # an admin
        assert [c["command"] for c in server.menu(GROUP, bob)] == ["help"]  # the default
        assert await bot.get_my_commands(BotCommandScopeAllChatAdministrators()) == (
            BotCommand("stop", "Stop"),
        )
        with pytest.raises(BadRequest, match="Invalid language code specified"):
            await bot.set_my_commands([("a", "b")], language_code="ita")
        with pytest.raises(BadRequest, match="Can't use specified scope in private chats"):
            await bot.set_my_commands([("a", "b")], scope=BotCommandScopeChatAdministrators(ALICE))
        with pytest.raises(BadRequest, match="Chat not found"):
            await bot.set_my_commands([("a", "b")], scope=BotCommandScopeChat(-999))
        await bot.set_my_commands([("a", "b")], scope=BotCommandScopeChat(ALICE))
        assert [c["command"] for c in server.menu(ALICE, alice)] == ["a"]
    url = f"{server.base_url}{server.token}/setMyCommands"
    async with aiohttp.ClientSession() as session:
        for scope, error in (
            ({"type": "everyone"}, "Unsupported type specified"),
            ({"type": "chat"}, 'Can\'t find field "chat_id"'),
            ("default", "BotCommandScope must be an Object"),
        ):
            body = {"commands": [{"command": "a", "description": "b"}], "scope": scope}
            async with session.post(url, json=body) as resp:
                answer = await resp.json()
            assert answer["description"] == f"Bad Request: can't parse BotCommandScope: {error}"


async def test_fault_injection_commands_and_raw_http(
    fake_telegram: FakeTelegramServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Even constructing RetryAfter emits a PTBDeprecationWarning (retry_after becomes a
    # timedelta) unless PTB_TIMEDELTA=1 is set.
    monkeypatch.setenv("PTB_TIMEDELTA", "1")
    server = fake_telegram
    alice = server.add_user(ALICE, "Alice")
    alice.start_private()
    async with Bot(server.token, base_url=server.base_url) as bot:
        server.fail_next("sendMessage", 429, retry_after=3)
        with pytest.raises(RetryAfter) as limited:
            await bot.send_message(ALICE, "x")
        assert limited.value.retry_after == dt.timedelta(seconds=3)
        server.fail_next("sendmessage", 403)
        with pytest.raises(Forbidden, match="blocked"):
            await bot.send_message(ALICE, "x")
        assert (await bot.send_message(ALICE, "x")).text == "x"
        assert len(server.messages(ALICE, from_bot=True)) == 1

        await bot.set_my_commands([("gioca", "Nuova partita")], language_code="it")
        assert server.my_commands(language_code="it") == [
            {"command": "gioca", "description": "Nuova partita"}
        ]
        with pytest.raises(BadRequest, match="Bot_command_invalid"):
            await bot.set_my_commands([("Gioca!", "x")])
        assert await bot.send_chat_action(ALICE, "typing")
        with pytest.raises(BadRequest, match="not implemented by the fake"):
            await bot.send_dice(ALICE)

    url = f"{server.base_url}{server.token}"
    async with aiohttp.ClientSession() as session:
        async with session.post(
            f"{url}/SENDMESSAGE",
            json={
                "chat_id": ALICE,
                "text": "json",
                "reply_markup": {"inline_keyboard": [[{"text": "a", "callback_data": "b"}]]},
            },
        ) as resp:
            body = await resp.json()
            assert resp.status == 200 and body["ok"] and body["result"]["text"] == "json"
            assert body["result"]["reply_markup"]["inline_keyboard"][0][0]["callback_data"] == "b"
        form = aiohttp.FormData({"chat_id": str(ALICE), "text": "123"})
        async with session.post(f"{url}/sendMessage", data=form) as resp:
            assert (await resp.json())["result"]["text"] == "123"
        async with session.post(f"{url}/noSuchMethod") as resp:
            assert resp.status == 404
        async with session.post(f"{server.base_url}wrong:token/getMe") as resp:
            assert resp.status == 401


async def test_flood_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Telegram's flood limits at real speed: a private chat's burst of 3, a group's 20 a
    minute, 30 a second overall; past them 429 with retry_after, and the chat stays refused
    for that long; a press not answered within 15 s is too old."""
    monkeypatch.setenv("PTB_TIMEDELTA", "1")
    async with FakeTelegramServer() as server:
        server.add_user(ALICE, "Alice").start_private()
        server.add_group(GROUP, "Tavolo", members=[ALICE])
        async with Bot(server.token, base_url=server.base_url) as bot:
            for _ in range(3):
                await bot.send_message(ALICE, "burst")
            with pytest.raises(RetryAfter) as limited:
                await bot.send_message(ALICE, "one too many")
            assert limited.value.retry_after == dt.timedelta(seconds=1)
            assert server.flood_refusals[-1].method == "sendMessage"
            message = await bot.send_message(GROUP, "1")
            for n in range(2, 20):
                await bot.edit_message_text(str(n), GROUP, message.message_id)
            await bot.delete_message(GROUP, message.message_id)
            with pytest.raises(RetryAfter) as limited:
                await bot.send_message(GROUP, "21st in a minute")
            assert limited.value.retry_after == dt.timedelta(seconds=60)
            with pytest.raises(RetryAfter):  # refused until the wait is over
                await bot.send_message(GROUP, "again")
            assert len(server.flood_refusals) == 3
            assert len(server.messages(GROUP, from_bot=True)) == 0
    async with FakeTelegramServer() as server:
        people = [server.add_user(ALICE + n, f"U{n}") for n in range(31)]
        for person in people:
            person.start_private()
        async with Bot(server.token, base_url=server.base_url) as bot:
            for person in people[:30]:  # 30 messages in a second are fine...
                await bot.send_message(person.id, "hi")
            with pytest.raises(RetryAfter):  # ... the 31st is not, whatever the chat
                await bot.send_message(people[30].id, "hi")
    async with FakeTelegramServer(query_timeout=0.0) as server:
        alice = server.add_user(ALICE, "Alice")
        alice.start_private()
        async with Bot(server.token, base_url=server.base_url) as bot:
            sent = await bot.send_message(ALICE, "x", reply_markup=PONG_MARKUP)
            press = alice.press(ALICE, sent.message_id, "again")
            with pytest.raises(BadRequest, match="Query is too old"):
                await bot.answer_callback_query(press.id)


async def test_wait_for_reports_last_calls(fake_telegram: FakeTelegramServer) -> None:
    server = fake_telegram
    server.add_user(ALICE, "Alice").start_private()
    async with Bot(server.token, base_url=server.base_url) as bot:
        await bot.send_message(ALICE, "prima")
        with pytest.raises(AssertionError) as timeout:
            await server.wait_for(
                lambda: server.last_message(ALICE).text == "mai",  # type: ignore[union-attr]
                timeout=0.05,
                message="never",
            )
    report = str(timeout.value)
    assert "never" in report and "sendMessage" in report and '"prima"' in report


def test_html_parser() -> None:
    assert parse_html('<a href="https://x.it/?a=1&b=2">l</a>') == (
        "l",
        [{"type": "text_link", "offset": 0, "length": 1, "url": "https://x.it/?a=1&b=2"}],
    )
    text, entities = parse_html(
        '<pre><code class="language-python">x = 1</code></pre><tg-spoiler>s</tg-spoiler>'
        '<span class="tg-spoiler">p</span><blockquote expandable>q</blockquote>&#x1F0A1;&quot;'
    )
    assert text == 'x = 1spq🂡"'
    assert entities == [
        {"type": "pre", "offset": 0, "length": 5, "language": "python"},
        {"type": "spoiler", "offset": 5, "length": 1},
        {"type": "spoiler", "offset": 6, "length": 1},
        {"type": "expandable_blockquote", "offset": 7, "length": 1},
    ]
    bad = {
        "<b>x": 'Can\'t find end tag corresponding to start tag "b"',
        "<b><i>x</b></i>": 'Unmatched end tag at byte offset 7, expected "</i>", found "</b>"',
        "x</b>": "Unexpected end tag at byte offset 1",
        "<br>": 'Unsupported start tag "br" at byte offset 0',
        '<span class="x">y</span>': 'Tag "span" must have class "tg-spoiler"',
        "a & b": 'Unescaped "&"',
        "a > b": 'Unescaped ">"',
        "&nbsp;": 'Unescaped "&"',
        "è<b": "Unclosed start tag at byte offset 2",
        "<a href>x</a>": "Expected equal sign",
    }
    for source, message in bad.items():
        with pytest.raises(HtmlParseError) as error:
            parse_html(source)
        assert message in str(error.value), source
    assert parse_html("a & b > c", strict=False) == ("a & b > c", [])


def test_markup_validation() -> None:
    assert validate_reply_markup({"inline_keyboard": [[]]}) is None
    for markup in (
        {"inline_keyboard": [[{"text": "", "callback_data": "x"}]]},
        {"inline_keyboard": [[{"text": "a"}]]},
        {"inline_keyboard": [[{"text": "a", "callback_data": ""}]]},
        {"inline_keyboard": [[{"text": "a", "callback_data": "x", "url": "https://t.me"}]]},
        {"inline_keyboard": "nope"},
        {"bogus": True},
    ):
        with pytest.raises(Exception, match="Bad Request"):
            validate_reply_markup(markup)


def test_web_app_buttons_only_in_private_chats_and_only_over_https() -> None:
    def button(url: object) -> dict[str, Any]:
        return {"inline_keyboard": [[{"text": "🃏", "web_app": {"url": url}}]]}

    page = button("https://tavolo.test/app/?m=1")
    assert validate_reply_markup(page) == page
    with pytest.raises(Exception, match="Bad Request: BUTTON_TYPE_INVALID"):
        validate_reply_markup(page, private=False)
    insecure = "Web App URL 'http://tavolo.test/' is invalid: Only HTTPS links are allowed"
    with pytest.raises(Exception, match=insecure):
        validate_reply_markup(button("http://tavolo.test/"))
    with pytest.raises(Exception, match='field "url" must be of type String'):
        validate_reply_markup(button(7))


async def test_no_error_logs_from_ptb(
    fake_telegram: FakeTelegramServer, caplog: pytest.LogCaptureFixture
) -> None:
    server = fake_telegram
    app, errors = build_ping_app(server)
    alice = server.add_user(ALICE, "Alice")
    with caplog.at_level(logging.WARNING):
        async with server.run(app):
            alice.start_private()
            alice.send(ALICE, "/ping")
            await server.wait_idle()
    assert errors == []
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


async def test_group_reply_and_allowed_updates(fake_telegram: FakeTelegramServer) -> None:
    server = fake_telegram
    alice = server.add_user(ALICE, "Alice")
    bob = server.add_user(BOB, "Bob")
    server.add_group(GROUP, "Tavolo", members=[bob], admins=[alice], bot_admin=True)
    app, errors = build_ping_app(server)
    updates: list[str] = []

    async def on_member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.chat_member is not None
        updates.append(update.chat_member.new_chat_member.status)

    app.add_handler(ChatMemberHandler(on_member, ChatMemberHandler.CHAT_MEMBER))
    async with server.run(app, allowed_updates=Update.ALL_TYPES):
        ping = bob.send(GROUP, "/ping")
        await server.wait_idle()
        assert server.allowed_updates == list(Update.ALL_TYPES)
        pong = server.last_message(GROUP, from_bot=True)
        # PTB's reply_text quotes in groups by default (reply_parameters).
        assert pong is not None and pong.reply_to is ping
        assert server.calls_of("sendMessage")[0].params["reply_parameters"] == {
            "message_id": ping.message_id
        }
        bob.send(GROUP, "chiacchiere")  # delivered: the bot is an administrator
        bob.leave_group(GROUP)
        await server.wait_idle()
        assert updates == ["left"]
    assert errors == []
    assert server.pending_updates() == []


async def test_chat_member_not_sent_by_default(fake_telegram: FakeTelegramServer) -> None:
    server = fake_telegram
    bob = server.add_user(BOB, "Bob")
    server.add_group(GROUP, "Tavolo", members=[bob], bot_admin=True)
    bob.leave_group(GROUP)
    assert [next(k for k in u if k != "update_id") for u in server.pop_updates()] == ["message"]


async def test_webhooks_carry_the_secret_and_are_sent_again_until_taken(
    fake_telegram: FakeTelegramServer,
) -> None:
    server = fake_telegram
    alice = server.add_user(ALICE, "Alice")
    got: list[tuple[str | None, int]] = []
    refuse = [True]

    async def hook(request: web.Request) -> web.Response:
        update = await request.json()
        got.append((request.headers.get("X-Telegram-Bot-Api-Secret-Token"), update["update_id"]))
        if refuse[0]:
            refuse[0] = False
            return web.Response(status=500)
        return web.Response()

    app = web.Application()
    app.router.add_post("/hook", hook)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        async with Bot(server.token, base_url=server.base_url) as bot:
            with pytest.raises(BadRequest, match=r"^Secret token contains unallowed characters$"):
                await bot.set_webhook("http://127.0.0.1/hook", secret_token="a+b=")
            with pytest.raises(BadRequest, match=r"^Secret token is too long$"):
                await bot.set_webhook("http://127.0.0.1/hook", secret_token="a" * 257)
            assert server.webhook_url == ""
            assert await bot.set_webhook(f"http://127.0.0.1:{port}/hook", secret_token="s3_c-r")
            message = alice.start_private()
            await server.wait_for(lambda: not server.pending_updates(), timeout=10)
            update_id = got[0][1]
            assert got == [("s3_c-r", update_id), ("s3_c-r", update_id)]  # refused, then taken
            assert message.text == "/start"
            with pytest.raises(Conflict, match="webhook is active"):
                await bot.get_updates()
            info = await bot.get_webhook_info()
            assert (info.url, info.pending_update_count) == (f"http://127.0.0.1:{port}/hook", 0)
            assert info.last_error_message == "Wrong response from the webhook: 500"
            assert await bot.delete_webhook()
            assert await bot.get_updates() == ()
    finally:
        await runner.cleanup()
