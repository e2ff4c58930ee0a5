"""Plays RocketMouse's game page (game/play/, docs/game-kit.md) in headless Chromium with
input at scripted times (DevTools protocol `Input.dispatch*Event` with `timestamp`), and
reads what it sealed — independently of Dossier, with Python's `cryptography`, from
docs/game-telemetry.md. Its model of the game is written from docs/game-kit.md alone.

The page times input by `event.timeStamp`, which Chromium takes from the protocol's
`timestamp`; the driver sends each press a little ahead of its time (polling the page's
clock, never measuring with the wall clock), so the recorded times are the scripted ones
however slow the machine.
"""
import base64
import json
import pathlib
import shutil
import struct

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

# MARK: - the game model (docs/game-kit.md, "The game model")

KINDS = ["crate", "spike", "trap"]
JUMP, SAFE_FROM, SAFE_TO, HIT_FROM, HIT_TO, LIVES = 600, 80, 520, 640, 760, 3


def mulberry32(seed):
    a = seed & 0xFFFFFFFF

    def imul(x, y):
        return (x * y) & 0xFFFFFFFF

    def nxt():
        nonlocal a
        a = (a + 0x6D2B79F5) & 0xFFFFFFFF
        t = a
        t = imul(t ^ (t >> 15), t | 1)
        t ^= (t + imul(t ^ (t >> 7), t | 61)) & 0xFFFFFFFF
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296
    return nxt


def obstacles(seed, n):
    r, out, t = mulberry32(seed), [], 0
    for _ in range(n):
        interval = 1000 + 250 * int(r() * 8)
        kind = KINDS[int(r() * 3)]
        t += interval
        out.append([t, interval, kind])
    return out


def expected_session(seed, taps, stop=None):
    """The lists, end and score a game with these tap times (whole ms) must record."""
    obs = obstacles(seed, 200)
    jumps = []
    for t in taps:
        if not jumps or t >= jumps[-1] + JUMP:
            jumps.append(t)
    collisions, end = [], None
    for i, (a, _, _) in enumerate(obs):
        c = a + HIT_FROM
        for j in jumps:
            if j + SAFE_FROM <= c < j + SAFE_TO:
                c = j + SAFE_TO
        if c <= a + HIT_TO:
            if stop is not None and c > stop:
                break
            collisions.append((c, i))
            if len(collisions) == LIVES:
                end = c
                break
    if end is None:
        end = stop
    hit = {i for _, i in collisions}
    cleared = sum(1 for i, (a, _, _) in enumerate(obs) if a + HIT_TO <= end and i not in hit)
    return {"obstacles": [o for o in obs if o[0] <= end], "taps": [t for t in taps if t <= end],
            "jumps": [j for j in jumps if j <= end], "collisions": [c for c, _ in collisions if c <= end],
            "end": end, "score": 10 * cleared + end // 1000}


# MARK: - the browser

def start_browser(download_dir: pathlib.Path, mobile: bool, dark: bool = False):
    o = Options()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
              "--window-size=1280,900", "--autoplay-policy=no-user-gesture-required"):
        o.add_argument(a)
    d = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=o)
    d.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(download_dir)})
    if mobile:
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True})
        d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    if dark:
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    return d


def screen(d):
    return d.execute_script("return document.body.getAttribute('data-current')")


def wait_for(d, script, what, limit=4000):
    """Polls a condition in the page (waiting for the page, not timing anything)."""
    for _ in range(limit):
        if d.execute_script("return " + script):
            return
        d.execute_script("return new Promise(function (r) { setTimeout(r, 20); })")
    raise AssertionError("the page never reached: " + what)


class Player:
    """One person on the page: presses at scripted times (ms on the page's clock)."""

    def __init__(self, driver, mobile):
        self.d, self.mobile = driver, mobile
        self.origin = driver.execute_script("return performance.timeOrigin")

    def now(self):
        return self.d.execute_script("return performance.now()")

    def ts(self, page_ms):
        return (self.origin + page_ms) / 1000.0

    def center(self, css):
        return self.d.execute_script("var b=document.querySelector(arguments[0]).getBoundingClientRect();"
                                     "return [b.left+b.width/2, b.top+b.height/2];", css)

    def touch(self, x, y, page_ms, hold=50):
        self.d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}], "timestamp": self.ts(page_ms)})
        self.d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": [], "timestamp": self.ts(page_ms + hold)})

    def mouse(self, x, y, page_ms, hold=50):
        for typ, dt in (("mousePressed", 0), ("mouseReleased", hold)):
            self.d.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": typ, "x": x, "y": y, "button": "left", "clickCount": 1,
                                                                "timestamp": self.ts(page_ms + dt)})

    def key(self, key, code, vk, page_ms, text=None, hold=40):
        down = {"type": "keyDown" if text else "rawKeyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk, "timestamp": self.ts(page_ms)}
        if text:
            down.update(text=text, unmodifiedText=text)
        self.d.execute_cdp_cmd("Input.dispatchKeyEvent", down)
        self.d.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk,
                                                          "timestamp": self.ts(page_ms + hold)})

    def press_button(self, css, page_ms):
        """Activates a button; its click comes at page_ms (touch end / mouse release)."""
        x, y = self.center(css)
        (self.touch if self.mobile else self.mouse)(x, y, page_ms - 50)

    def wait_clock(self, page_ms):
        while self.now() < page_ms:
            self.d.execute_script("return new Promise(function (r) { setTimeout(r, 10); })")

    def play(self, taps, how, stop=None, mute_at=None, lead=600.0, ahead=250.37):
        """Plays one game from the home or game-over screen. taps: ms after the start
        (fractions allowed); how(i) → "touch" | "key" | "mouse". Each press is sent `lead`
        ms before its time on the page's clock; the game starts `ahead` ms after now (with
        a large lead and ahead every press is sent before the game starts: what a slow,
        throttled page needs, as each DevTools input call waits for the page).
        Returns the start (page ms)."""
        current = screen(self.d)
        n_calls = 2 * (len(taps) + 3)
        if ahead == "auto":
            # Every press is to be sent before the game starts: leave three times what the
            # DevTools calls take on this (throttled, loaded) page, at the slowest of four
            # moves (a busy machine makes single calls slow now and then), and at least 3 s.
            slowest = 0.0
            for _ in range(4):
                a = self.now()
                self.d.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 1, "y": 1})
                slowest = max(slowest, self.now() - a)
            ahead = max(3000.0, 3 * n_calls * slowest) + 0.37
        t0 = self.now() + ahead
        self.press_button(f'section[data-screen="{current}"] [data-action="play"]', t0)
        wait_for(self.d, "document.body.getAttribute('data-current') === 'game'", "the game")
        cx, cy = self.center("#game-canvas")
        script = [(t, "tap", i) for i, t in enumerate(taps)]
        if mute_at is not None:
            script.append((mute_at, "mute", 0))
        if stop is not None:
            script.append((stop, "stop", 0))
        # With a huge lead every press goes out at once, before the start: no clock or screen
        # polls between them (each is a script call that waits for the busy, throttled page).
        eager = lead >= 1e8
        for t, what, i in sorted(script):
            if not eager:
                self.wait_clock(t0 + t - lead)
                if screen(self.d) != "game":
                    break
            at = t0 + t
            if what == "mute":
                self.key("m", "KeyM", 77, at, text="m")
            elif what == "stop":
                self.key("Escape", "Escape", 27, at)
            elif how(i) == "key":
                self.key(" ", "Space", 32, at, text=" ")
            elif how(i) == "mouse":
                self.mouse(cx, cy, at)
            else:
                self.touch(cx, cy, at)
        self.sent_by = self.now() - t0      # when the last press was sent, after the start
        wait_for(self.d, "document.body.getAttribute('data-current') === 'over'", "game over")
        return t0


def fill_survey(d, diagnosed, age, gender, medicated=None):
    d.find_element("css selector", f'input[name=diagnosed][value={"yes" if diagnosed else "no"}]').click()
    if diagnosed:
        d.find_element("css selector", f'input[name=medicated][value={"yes" if medicated else "no"}]').click()
    d.find_element("id", "age").send_keys(str(age))
    d.find_element("css selector", f"input[name=gender][value={gender}]").click()
    d.find_element("id", "survey-done").click()
    wait_for(d, "document.body.getAttribute('data-current') === 'home'", "the home screen")


def wait_sent(d, n):
    """Waits until n uploads were sent since the page loaded."""
    wait_for(d, f"RM.sent >= {n} && document.getElementById('outbox').hidden", f"{n} uploads sent")


# MARK: - an independent reader of uploads (docs/game-telemetry.md)

def open_plaintext(data: bytes, private_pem: bytes) -> bytes:
    """Opens a sealed upload (RMU1 ‖ u16 L ‖ RSA-OAEP-SHA-256 key ‖ nonce ‖ AES-GCM, header as AAD)."""
    assert data[:4] == b"RMU1", "magic"
    (n,) = struct.unpack(">H", data[4:6])
    header, rest = data[:6 + n], data[6 + n:]
    key = serialization.load_pem_private_key(private_pem, password=None)
    k = key.decrypt(header[6:], padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None))
    assert len(k) == 32
    return AESGCM(k).decrypt(rest[:12], rest[12:], header)


def public_pem(private_pem: bytes) -> bytes:
    key = serialization.load_pem_private_key(private_pem, password=None)
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def open_upload(data: bytes, private_pem: bytes):
    """Opens and verifies a sealed, signed upload: (device record, body records)."""
    plain = open_plaintext(data, private_pem)
    first, body = plain.split(b"\n", 1)
    dev = json.loads(first)
    assert list(dev) == ["type", "player", "signing_key", "result_key", "signature"], dev
    msg = b"RocketMouse upload v2\n" + dev["player"].encode() + b"\n" + dev["result_key"].encode() + b"\n" + body
    Ed25519PublicKey.from_public_bytes(base64.b64decode(dev["signing_key"])).verify(base64.b64decode(dev["signature"]), msg)
    assert len(base64.b64decode(dev["result_key"])) == 32
    return dev, [json.loads(line) for line in body.decode("utf-8").splitlines() if line]
