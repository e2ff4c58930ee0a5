"""Input paths of real phones, tablets and keyboards, sent through the DevTools protocol,
for the device-matrix test (test_recall_kit_devices.py). Each `type` call of the whole
session uses the next input method in turn, and the ideal log holds what
docs/recall-kit.md ("How a key is named") says the kit must record for it.

Events without a key-down (a swipe word, an autocorrect replacement) carry the browser's
own clock, not a scripted time stamp. The scripted clock runs ahead of the real one (time
zero is set in the future and the script advances faster than the browser executes it),
so the kit clamps such a change to the time of the event before it (docs: times never go
backwards); `untimed` checks that the scripted clock is ahead before each one, so the
ideal time is exact rather than hoped for.
"""
import json
import unicodedata

from recall_kit_driver import Player

SHIFTED = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")

METHODS = ["soft229", "composition", "keytext", "shift-early", "paste", "swipe", "autocorrect"]
MASKED = ["soft229", "keytext", "shift-early"]   # a paste into an Entry field is refused (test_recall_kit_refusals.py)


def graphemes(s):
    """Characters as the kit counts them (extended grapheme clusters), for the strings these
    tests use: combining marks, emoji modifiers, variation selectors and ZWJ joins attach."""
    out = []
    for ch in s:
        joins = out and (unicodedata.combining(ch) or 0x1F3FB <= ord(ch) <= 0x1F3FF or ch in "\uFE0F\u200D"
                         or out[-1].endswith("\u200D"))
        if joins:
            out[-1] += ch
        else:
            out.append(ch)
    return out


def u16(s):
    return len(s.encode("utf-16-le")) // 2


class DevicePlayer(Player):
    """A Player whose `type` cycles through the input methods of METHODS."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.turns = 0
        self.masked_turns = 0
        self.used = {m: 0 for m in METHODS}

    def cdp_key(self, **k):
        self.d.execute_cdp_cmd("Input.dispatchKeyEvent", k)
        self.events_sent += 1

    def last_t(self):
        return max(e["t"] for e in self.ideal[1:])

    def untimed(self):
        """The ideal time of a change with no key-down: the last event's (see the module doc)."""
        now = self.d.execute_script("return performance.timeOrigin + performance.now()")
        assert now < self.ts(self.last_t()) * 1000.0, "the scripted clock fell behind the browser's: slow the script down"
        return self.last_t()

    def settle(self):
        """Two animation frames: the browser's input method learns which field has the focus
        (the renderer reports it after a frame), so a composition goes to the focused field."""
        self.d.execute_async_script("var done = arguments[0]; requestAnimationFrame(function () { requestAnimationFrame(done); });")

    def set_clipboard(self, text):
        """Puts text on the clipboard (the Clipboard API, permission granted), the focus unmoved."""
        self.d.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        r = self.d.execute_cdp_cmd("Runtime.evaluate", {"expression": "navigator.clipboard.writeText(%s).then(() => 'ok', e => String(e))"
                                                        % json.dumps(text), "awaitPromise": True, "userGesture": True})
        assert r["result"]["value"] == "ok", r

    def down_up(self, field, label, t, hold, text_after):
        self.log(t=round(t), type="key", key=label, action="down", text=text_after, field=field)
        self.log(t=round(t + hold), type="key", key=label, action="up", field=field)

    # -- the methods ----------------------------------------------------------------------
    def type(self, field, text, t, gap=130, hold=70):
        # Masked (password) fields get no composition: soft keyboards turn suggestions,
        # swipe and autocorrect off there, and so no IME composes in them.
        if self.page == "entry":
            method = MASKED[self.masked_turns % len(MASKED)]
            self.masked_turns += 1
        else:
            method = METHODS[self.turns % len(METHODS)]
            self.turns += 1
        self.used[method] += 1
        if method in ("paste", "swipe"):
            return self.whole(method, field, text, t)
        if method == "autocorrect" and len(graphemes(text)) >= 2 and "\b" not in text:
            return self.autocorrect(field, text, t, gap, hold)
        if method == "composition" and "\b" not in text:
            end = self.compose(field, text, t, gap, hold)
            self.d.execute_cdp_cmd("Input.insertText", {"text": text})   # commit unchanged: nothing recorded
            return end
        return self.keys(method if method != "autocorrect" else "soft229", field, text, t, gap, hold)

    def keys(self, method, field, text, t, gap, hold):
        for ch in graphemes(text):
            self.fields[field] = self.fields[field][:-1] if ch == "\b" else self.fields[field] + ch
            label = "⌫" if ch == "\b" else ("space" if ch == " " else ch)
            # A DevTools keydown carries at most 3 UTF-16 units of text: a longer emoji comes
            # through insertText, as emoji keyboards send it.
            if method == "soft229" or u16(ch) > 3:
                # Android: keyCode 229 with no text, the character through insertText (beforeinput/input).
                self.cdp_key(type="keyDown", key="Unidentified", windowsVirtualKeyCode=229, timestamp=self.ts(t))
                if ch == "\b":
                    self.d.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": "Backspace", "code": "Backspace",
                                                                      "windowsVirtualKeyCode": 8, "timestamp": self.ts(t)})
                else:
                    self.d.execute_cdp_cmd("Input.insertText", {"text": ch})
                self.cdp_key(type="keyUp", key="Unidentified", windowsVirtualKeyCode=229, timestamp=self.ts(t + hold))
            elif method == "shift-early" and ch in SHIFTED:
                # A hardware keyboard: Shift released before the letter, whose key-up then says "a".
                code = "Key" + ch
                self.cdp_key(type="rawKeyDown", key="Shift", code="ShiftLeft", windowsVirtualKeyCode=16, modifiers=8,
                             timestamp=self.ts(t - 30))
                self.log(t=round(t - 30), type="key", key="Shift", action="down", text=self.fields[field][:-1], field=field)
                self.cdp_key(type="keyDown", key=ch, code=code, text=ch, unmodifiedText=ch.lower(), windowsVirtualKeyCode=ord(ch),
                             modifiers=8, timestamp=self.ts(t))
                self.log(t=round(t), type="key", key=ch, action="down", text=self.fields[field], field=field)
                self.cdp_key(type="keyUp", key="Shift", code="ShiftLeft", windowsVirtualKeyCode=16, timestamp=self.ts(t + 20))
                self.log(t=round(t + 20), type="key", key="Shift", action="up", field=field)
                self.cdp_key(type="keyUp", key=ch.lower(), code=code, windowsVirtualKeyCode=ord(ch), timestamp=self.ts(t + hold))
                self.log(t=round(t + hold), type="key", key=ch, action="up", field=field)
                t += gap
                continue
            else:
                # A key that sends its character with the keydown (iOS soft keyboard, hardware keys).
                code = "Key" + ch.upper() if ch.isascii() and ch.isalpha() else ""
                vk = 8 if ch == "\b" else (ord(ch.upper()) if ch.isascii() and ch.isalnum() else 0)
                down = {"type": "rawKeyDown" if ch == "\b" else "keyDown", "key": "Backspace" if ch == "\b" else ch,
                        "code": "Backspace" if ch == "\b" else code, "windowsVirtualKeyCode": vk, "timestamp": self.ts(t)}
                if ch != "\b":
                    down.update(text=ch, unmodifiedText=ch)
                self.cdp_key(**down)
                self.cdp_key(type="keyUp", key=down["key"], code=down["code"], windowsVirtualKeyCode=vk, timestamp=self.ts(t + hold))
            self.down_up(field, label, t, hold, self.fields[field])
            t += gap
        return t - gap + hold

    def compose(self, field, text, t, gap, hold, shown=None):
        """Each character a 229 key-down, the composition growing by it (Input.imeSetComposition)."""
        shown = shown or text
        start = self.fields[field]
        self.settle()
        keys = graphemes(shown)
        for i, ch in enumerate(keys):
            composing = "".join(keys[: i + 1])
            self.cdp_key(type="keyDown", key="Unidentified", windowsVirtualKeyCode=229, timestamp=self.ts(t))
            self.d.execute_cdp_cmd("Input.imeSetComposition", {"text": composing, "selectionStart": u16(composing),
                                                               "selectionEnd": u16(composing)})
            self.cdp_key(type="keyUp", key="Unidentified", windowsVirtualKeyCode=229, timestamp=self.ts(t + hold))
            self.fields[field] = start + composing
            self.down_up(field, "space" if ch == " " else ch, t, hold, self.fields[field])
            t += gap
        return t - gap + hold

    def autocorrect(self, field, text, t, gap, hold):
        """Composes the text with its last two characters swapped, then the keyboard commits the right text."""
        g = graphemes(text)
        typo = "".join(g[:-2] + [g[-1], g[-2]])
        start = self.fields[field]
        end = self.compose(field, text, t, gap, hold, shown=typo)
        if typo == text:
            self.d.execute_cdp_cmd("Input.insertText", {"text": text})
            return end
        at = self.untimed()
        self.d.execute_cdp_cmd("Input.insertText", {"text": text})
        self.fields[field] = start + text
        last = "space" if g[-1] == " " else g[-1]
        self.log(t=at, type="key", key=last, action="tap", text=self.fields[field], field=field)
        return end

    def whole(self, method, field, text, t):
        """A paste (Control+V: Control down/up, the paste a tap at V's time) or a swipe word (a tap)."""
        self.fields[field] += text
        last = graphemes(text)[-1]
        last = "space" if last == " " else last
        if method == "paste":
            self.set_clipboard(text)
            self.cdp_key(type="rawKeyDown", key="Control", code="ControlLeft", windowsVirtualKeyCode=17, modifiers=2,
                         timestamp=self.ts(t))
            self.log(t=round(t), type="key", key="Control", action="down", text=self.fields[field][: -len(text)], field=field)
            self.cdp_key(type="rawKeyDown", key="v", code="KeyV", windowsVirtualKeyCode=86, modifiers=2, commands=["paste"],
                         timestamp=self.ts(t + 90))
            self.log(t=round(t + 90), type="key", key=last, action="tap", text=self.fields[field], field=field)
            self.cdp_key(type="keyUp", key="v", code="KeyV", windowsVirtualKeyCode=86, modifiers=2, timestamp=self.ts(t + 150))
            self.cdp_key(type="keyUp", key="Control", code="ControlLeft", windowsVirtualKeyCode=17, timestamp=self.ts(t + 200))
            self.log(t=round(t + 200), type="key", key="Control", action="up", field=field)
            return t + 200
        # A swipe word committed at once (no key, no composition step; a composition step
        # committed unchanged writes nothing, which the composition method covers).
        at = self.untimed()
        self.d.execute_cdp_cmd("Input.insertText", {"text": text})
        self.log(t=at, type="key", key=last, action="tap", text=self.fields[field], field=field)
        return max(t, at)
