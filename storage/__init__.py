"""Durable matches: Tavolo's persistent state on SQLite (default) or any SQLAlchemy database.

``Store.open()`` opens (and migrates) the database; every accepted move is committed with the
match's new snapshot before the bot answers; ``unfinished_matches()`` lists what to resume after a
restart. See :mod:`storage.store` for the whole API and ``storage/README.md`` for the design.
"""

from storage.database import DEFAULT_URL
from storage.errors import (
    AlreadySeated,
    ChatBusy,
    Conflict,
    DatabaseUnavailable,
    LobbyFull,
    MatchNotFound,
    SeatError,
    StaleVersion,
    StoreError,
    WrongStatus,
)
from storage.records import (
    ACTIVE,
    ANONYMOUS,
    FINISHED,
    KEEP,
    LOBBY,
    PLAYING,
    STATUSES,
    STOPPED,
    ChatSettings,
    Confirmation,
    GameStats,
    Keep,
    LeaderboardEntry,
    MatchRecord,
    MoveRecord,
    PlayerResult,
    RatingRecord,
    Season,
    SeatRecord,
    SeatUI,
    UserRecord,
    Work,
)
from storage.store import Store, schema_head

__all__ = [
    "ACTIVE",
    "ANONYMOUS",
    "DEFAULT_URL",
    "FINISHED",
    "KEEP",
    "LOBBY",
    "PLAYING",
    "STATUSES",
    "STOPPED",
    "AlreadySeated",
    "ChatBusy",
    "ChatSettings",
    "Confirmation",
    "Conflict",
    "DatabaseUnavailable",
    "GameStats",
    "Keep",
    "LeaderboardEntry",
    "LobbyFull",
    "MatchNotFound",
    "MatchRecord",
    "MoveRecord",
    "PlayerResult",
    "RatingRecord",
    "Season",
    "SeatError",
    "SeatRecord",
    "SeatUI",
    "StaleVersion",
    "Store",
    "StoreError",
    "UserRecord",
    "Work",
    "WrongStatus",
    "schema_head",
]
