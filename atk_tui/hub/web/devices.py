"""Paired devices (SPEC §16, issue 41): `atk hub pair` makes a one-time pairing code (valid
a few minutes, single-use); the browser that opens its URL names itself and gets a long-lived
device credential in a cookie; `atk hub devices` lists them, `atk hub revoke NAME` ends one.

Only a SHA-256 of each code and credential is kept (`web/pairings.json`, `web/devices.json`,
0600): reading the state directory does not let anyone pose as a device.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from atk_tui.hub.web.statefiles import DEVICES, PAIRINGS, changing, read_json, web_dir

PAIR_TTL_S = 600.0  # a pairing URL works for ten minutes
#: a device's name: what `atk hub devices` lists and the commit trailer says (`Atk-Device: NAME`)
NAME_RE = re.compile(r"[^\W_][\w .-]{0,31}")
_CODE_RE = re.compile(r"[A-Za-z0-9_-]{20,64}")
_CRED_RE = re.compile(r"([0-9a-f]{16})\.([A-Za-z0-9_-]{32,64})")


class PairError(Exception):
    """Why a pairing is refused (said to the person)."""


@dataclass(frozen=True)
class Device:
    id: str
    name: str
    paired: float
    last_seen: float | None


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogateescape")).hexdigest()


def new_pairing(state_dir: Path, *, ttl_s: float = PAIR_TTL_S, now: float | None = None) -> str:
    """A new one-time pairing code (its URL is `BASE/pair/CODE`), valid `ttl_s`."""
    now = time.time() if now is None else now
    code = secrets.token_urlsafe(24)
    with changing(web_dir(state_dir) / PAIRINGS) as data:
        for key, entry in list(data.items()):  # forget long-expired codes
            if not isinstance(entry, dict) or float(entry.get("expires", 0)) < now - 86400:
                del data[key]
        data[_hash(code)] = {"expires": now + ttl_s, "used": None}
    return code


def pairing_refusal(state_dir: Path, code: str, *, now: float | None = None) -> str | None:
    """Why `code` cannot pair a device now, or None (not spent by asking)."""
    now = time.time() if now is None else now
    entry = read_json(web_dir(state_dir) / PAIRINGS).get(_hash(code)) if _CODE_RE.fullmatch(code) else None
    return _refusal(entry, now)


def _refusal(entry: object, now: float) -> str | None:
    if not isinstance(entry, dict):
        return "this pairing link is not one this hub made (run `atk hub pair` for a new one)"
    if entry.get("used"):
        return "this pairing link was used already: each works once (run `atk hub pair` for a new one)"
    if float(entry.get("expires", 0)) < now:
        return "this pairing link expired: each works for a few minutes (run `atk hub pair` for a new one)"
    return None


def valid_name(name: str) -> str:
    """`name` as a device name, or PairError saying what a name may be."""
    name = " ".join(name.split())
    if not NAME_RE.fullmatch(name):
        raise PairError("a device name is 1 to 32 letters, digits, spaces, dots, dashes or underscores")
    return name


def pair(state_dir: Path, code: str, name: str, *, now: float | None = None) -> tuple[Device, str]:
    """Spend pairing `code` for a new device called `name` (made unique: "phone-2"); returns
    the device and its credential (the cookie's value, shown to nobody else)."""
    now = time.time() if now is None else now
    name = valid_name(name)
    if not _CODE_RE.fullmatch(code):
        raise PairError(_refusal(None, now) or "")
    with changing(web_dir(state_dir) / PAIRINGS) as data:
        entry = data.get(_hash(code))
        why = _refusal(entry, now)
        if why:
            raise PairError(why)
        entry["used"] = now
    device_id = secrets.token_hex(8)
    secret = secrets.token_urlsafe(32)
    with changing(web_dir(state_dir) / DEVICES) as data:
        taken = {str(d.get("name", "")).casefold() for d in data.values() if isinstance(d, dict)}
        unique, n = name, 1
        while unique.casefold() in taken:
            n += 1
            unique = f"{name[:28]}-{n}"
        data[device_id] = {"name": unique, "hash": _hash(secret), "paired": now, "last_seen": None}
    return Device(device_id, unique, now, None), f"{device_id}.{secret}"


def device_for(state_dir: Path, credential: str | None, *, touch: bool = True, now: float | None = None) -> Device | None:
    """The paired device whose credential (the cookie's value) is `credential`, or None.
    `touch`: note it was seen now (at most once a minute)."""
    found = _CRED_RE.fullmatch(credential or "")
    if not found:
        return None
    device_id, secret = found.groups()
    entry = read_json(web_dir(state_dir) / DEVICES).get(device_id)
    if not isinstance(entry, dict) or not hmac.compare_digest(str(entry.get("hash", "")), _hash(secret)):
        return None
    now = time.time() if now is None else now
    seen = entry.get("last_seen")
    if touch and (seen is None or now - float(seen) > 60):
        with changing(web_dir(state_dir) / DEVICES) as data:
            if device_id in data:
                data[device_id]["last_seen"] = now
        seen = now
    return Device(device_id, str(entry.get("name")), float(entry.get("paired", 0)), seen)


def devices(state_dir: Path) -> list[Device]:
    """Every paired device, the first paired first."""
    out = [
        Device(k, str(v.get("name")), float(v.get("paired", 0)), v.get("last_seen"))
        for k, v in read_json(web_dir(state_dir) / DEVICES).items()
        if isinstance(v, dict)
    ]
    return sorted(out, key=lambda d: (d.paired, d.name))


def revoke(state_dir: Path, name: str) -> Device | None:
    """End the device called `name` (case-insensitive): its cookie opens nothing from now on.
    The revoked device, or None when there is none by that name."""
    with changing(web_dir(state_dir) / DEVICES) as data:
        for device_id, entry in list(data.items()):
            if isinstance(entry, dict) and str(entry.get("name", "")).casefold() == " ".join(name.split()).casefold():
                del data[device_id]
                return Device(device_id, str(entry.get("name")), float(entry.get("paired", 0)), entry.get("last_seen"))
    return None


__all__ = ["PAIR_TTL_S", "Device", "PairError", "device_for", "devices", "new_pairing", "pair", "pairing_refusal", "revoke"]
