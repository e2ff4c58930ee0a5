"""Plays a participant through the recall test kit in headless Chromium with scripted
event times (DevTools protocol `Input.dispatch*Event` with `timestamp`), and writes the
ideal log those actions should produce. Used by test_recall_kit.py.

The kit times events by `event.timeStamp`, which Chromium takes from the protocol's
`timestamp`, so the scripted times hold however loaded the machine is: nothing here
waits on the wall clock.
"""
import json
import os
import pathlib
import shutil
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service


def start_browser(download_dir: pathlib.Path, mobile: bool, size=(390, 844)):
    o = Options()
    o.add_argument("--headless=new")
    o.add_argument("--no-sandbox")
    o.add_argument("--disable-gpu")
    o.add_argument("--allow-file-access-from-files")
    o.add_argument("--window-size=1280,900")
    path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    d = webdriver.Chrome(service=Service(path), options=o)
    d.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(download_dir)})
    if mobile:
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                          {"width": size[0], "height": size[1], "deviceScaleFactor": 3, "mobile": True})
        d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    return d


class Player:
    """Sends input at scripted times (ms since Begin) and records the ideal log."""

    def __init__(self, driver, mobile: bool, participant: str, strings):
        self.d = driver
        self.mobile = mobile
        self.participant = participant
        self.strings = strings
        self.ideal = [{"type": "session", "format": "dossier-recall/1", "participant": participant, "strings": strings}]
        self.t = 0.0           # the scripted clock, ms since Begin
        self.epoch = None      # epoch seconds of t = 0
        self.fields = {}       # the current page's field texts (ideal)
        self.page = None
        self.string = None
        self.events_sent = 0

    # -- low level ------------------------------------------------------------------
    def ts(self, t_ms):
        return self.epoch + t_ms / 1000.0

    def center(self, css):
        r = self.d.execute_script(
            "var e=document.querySelector(arguments[0]); e.scrollIntoView({block:'center'});"
            "var b=e.getBoundingClientRect(); return [b.left+b.width/2, b.top+b.height/2];", css)
        return r[0], r[1]

    def press(self, css, t_ms):
        """A mouse click (desktop) or a touch tap (mobile) on an element: down at t, up 60 ms later."""
        x, y = self.center(css)
        if self.mobile:
            self.d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}], "timestamp": self.ts(t_ms)})
            self.d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": [], "timestamp": self.ts(t_ms + 60)})
        else:
            for typ, dt in (("mousePressed", 0), ("mouseReleased", 60)):
                self.d.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": typ, "x": x, "y": y, "button": "left",
                                                                    "clickCount": 1, "timestamp": self.ts(t_ms + dt)})
        self.events_sent += 2
        return t_ms + 60   # the click's time (mouse release / touch end)

    def key(self, ch, t_ms, hold=70):
        """One character: down at t (its text), up at t + hold."""
        if self.mobile:
            # An Android-style soft keyboard: keyCode 229, key "Unidentified", then the text.
            down = {"type": "keyDown", "key": "Unidentified", "windowsVirtualKeyCode": 229, "text": ch, "unmodifiedText": ch}
            up = {"type": "keyUp", "key": "Unidentified", "windowsVirtualKeyCode": 229}
        elif ch == "\b":
            down = {"type": "rawKeyDown", "key": "Backspace", "code": "Backspace", "windowsVirtualKeyCode": 8}
            up = {"type": "keyUp", "key": "Backspace", "code": "Backspace", "windowsVirtualKeyCode": 8}
        else:
            vk = ord(ch.upper()) if ch.isalnum() else 0
            down = {"type": "keyDown", "key": ch, "text": ch, "unmodifiedText": ch, "windowsVirtualKeyCode": vk}
            up = {"type": "keyUp", "key": ch, "windowsVirtualKeyCode": vk}
        down["timestamp"] = self.ts(t_ms)
        up["timestamp"] = self.ts(t_ms + hold)
        self.d.execute_cdp_cmd("Input.dispatchKeyEvent", down)
        self.d.execute_cdp_cmd("Input.dispatchKeyEvent", up)
        self.events_sent += 2

    def enter(self, t_ms):
        for typ, dt in (("keyDown", 0), ("keyUp", 50)):
            self.d.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": typ, "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13,
                                                              **({"text": "\r"} if typ == "keyDown" else {}), "timestamp": self.ts(t_ms + dt)})

    # -- ideal log ------------------------------------------------------------------------
    def log(self, **ev):
        self.ideal.append(ev)

    def show(self, page, string, t):
        self.page, self.string = page, string
        n = {"memorize": 1, "verify": 1, "entry": 10, "recall": 10}.get(page, 0)
        self.fields = {i: "" for i in range(1, n + 1)}
        ev = {"t": t, "type": "page", "page": page}
        if string:
            ev["string"] = string
        self.log(**ev)

    def turn(self, button, t, **extra):
        if self.fields:
            self.log(t=t, type="fields", values=[self.fields[i] for i in sorted(self.fields)])
        self.log(t=t, type="button", button=button, **extra)

    # -- participant actions --------------------------------------------------------------
    def begin(self):
        d = self.d
        d.find_element("id", "participant").send_keys(self.participant)
        d.find_element("id", "welcome-done").click()
        origin, now = d.execute_script("return [performance.timeOrigin, performance.now()]")
        # Time zero a little in the future of the page's clock, with a fractional part.
        self.epoch = (origin + now + 2000.37) / 1000.0 - 0.06
        self.press("#begin", 0)   # the click (release) comes at t = 60 ms on the scripted clock
        self.epoch += 0.06        # so that time zero is the Begin click
        self.log(t=0, type="button", button="begin")
        self.show("memorize", 1, 0)

    def focus_field(self, field, t):
        sel = self.field_selector(field)
        self.press(sel, t - 60)
        self.log(t=t - 60, type="focus", field=field)
        return t

    def field_selector(self, field):
        return f'section[data-page="{self.page}"] input[data-field="{field}"]'

    def type(self, field, text, t, gap=130, hold=70):
        for ch in text:
            if ch == "\b":
                self.fields[field] = self.fields[field][:-1]
            else:
                self.fields[field] += ch
            self.key(ch, t, hold)
            label = "⌫" if ch == "\b" else ch
            self.log(t=round(t), type="key", key=label, action="down", text=self.fields[field], field=field)
            self.log(t=round(t + hold), type="key", key=label, action="up", field=field)
            t += gap
        return t - gap + hold

    def click_button(self, css, t):
        return self.press(css, t - 60)

    def ensure_ideal_times_are_ints(self):
        for e in self.ideal[1:]:
            assert float(e["t"]).is_integer(), e
            e["t"] = int(e["t"])


def play_whole_session(p: Player, practice=True):
    """Plays every page of the test; returns the scripted end time (ms since Begin)."""
    S = p.strings
    p.begin()
    t = 1500
    for n in range(1, 11):
        target = S[n - 1]
        # Memorize: practice typing on the first string.
        if practice and n == 1:
            t = p.focus_field(1, t)
            t = p.type(1, target[:2], t + 200) + 400
        t = p.click_button("#memorize-next", t + 1700 + 37 * n)
        p.turn("next", t)
        p.show("verify", n, t)
        p.log(t=t, type="focus", field=1)     # the Verify field is focused on display
        if n == 2:
            # A wrong attempt, Not OK, back to Memorize, then right.
            t = p.type(1, target[:-1] + "#", t + 600) + 250
            t = p.click_button("#verify", t)
            p.log(t=t, type="button", button="verify", result="not-ok")
            p.log(t=t, type="focus", field=1)     # after Not OK the field has the focus again
            t = p.click_button("#back-to-memorize", t + 700)
            p.turn("memorize", t)
            p.show("memorize", n, t)
            t = p.click_button("#memorize-next", t + 1300)
            p.turn("next", t)
            p.show("verify", n, t)
            p.log(t=t, type="focus", field=1)
        t = p.type(1, target, t + 650) + 300
        t = p.click_button("#verify", t)
        p.log(t=t, type="button", button="verify", result="ok")
        t = p.click_button("#start-test", t + 500)
        p.turn("start-test", t)
        p.show("entry", n, t)
        t += 400
        for f in range(1, 11):
            if f == 1 or p.mobile or f % 3 == 0:
                t = p.focus_field(f, t + 150)
            else:
                # Next (Enter) in the previous field moves here.
                p.enter(t + 150)
                t += 150
                p.log(t=t, type="focus", field=f)
            text = target
            if n == 3 and f == 5 and not p.mobile:
                text = target[:1] + "x\b" + target[1:]   # a typo corrected with Backspace
            gap = 110 + 7 * f + 3 * n
            t = p.type(f, text, t + 220, gap=gap, hold=60 + f) + 90
        t = p.click_button("#entry-done", t + 600)
        p.turn("done", t)
        if n < 10:
            p.show("memorize", n + 1, t)
    p.show("recall", None, t)
    t = p.focus_field(1, t + 900)
    t = p.type(1, S[0], t + 300) + 200
    t = p.focus_field(2, t + 150)
    t = p.type(2, S[2] + "q", t + 300) + 200      # a wrong recall
    t = p.focus_field(3, t + 150)
    t = p.type(3, S[9], t + 300) + 200
    t = p.click_button("#recall-done", t + 800)
    p.turn("done", t)
    p.show("thankyou", None, t)
    p.ensure_ideal_times_are_ints()
    return t


def export_log(driver, admin_url, download_dir: pathlib.Path, timeout_s=60):
    """Clicks Export on the administrator page and returns the downloaded log's path."""
    driver.get(admin_url)
    before = set(download_dir.glob("*.jsonl"))
    driver.find_element("css selector", "button[data-export]").click()
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:          # waiting for a file, not timing anything
        new = [f for f in download_dir.glob("*.jsonl") if f not in before]
        if new and not list(download_dir.glob("*.crdownload")):
            return new[0]
        time.sleep(0.05)
    raise AssertionError("the export did not arrive")


def write_jsonl(path: pathlib.Path, events):
    path.write_text("".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in events), encoding="utf-8")
