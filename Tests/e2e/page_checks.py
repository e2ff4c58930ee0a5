"""What the page tests check in real headless Chromium, in one place: a browser started
the same way, axe-core (the `axe.min.js` of the axe-playwright-python wheel; serious and
critical violations count), no sideways scrolling on a phone, and a screenshot of each
view into a folder printed at the start (`$DOSSIER_SHOTS`, else a temporary folder).

    shots = shots_folder(tmp_path / "shots")
    drv.execute_script(axe_source())
    for scheme, w, h in each_view(drv):
        problems += look(drv, shots, "home", scheme, w, h)
"""
import os
import pathlib
import shutil

import pytest

SIZES = [(1280, 900), (390, 844)]
SCHEMES = ["light", "dark"]
PHONE_WIDTH = 600   # narrower windows are emulated as a phone


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


def headless_chromium(*extra, window="1280,900", prefs=None):
    """Chromium (headless, software GL, muted) driven by chromedriver, with `extra`
    command-line switches and `prefs` (Chromium preferences); skips the test where either
    is not installed."""
    from selenium import webdriver
    chromium = find_chromium()
    if not chromium or not shutil.which("chromedriver"):
        pytest.skip("Debian chromium and chromium-driver are needed (scripts/deps/experiences.apt)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={window}",
              "--mute-audio", "--enable-unsafe-swiftshader", "--use-angle=swiftshader") + extra:
        opts.add_argument(a)
    if prefs:
        opts.add_experimental_option("prefs", prefs)
    return webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=shutil.which("chromedriver")))


def axe_source():
    try:
        import axe_playwright_python
    except ImportError:
        pytest.skip("axe-playwright-python (for axe.min.js) is not installed")
    return (pathlib.Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text()


def run_axe(drv):
    """The serious and critical violations axe finds in the page as it is now (the page
    must hold `axe_source()` already)."""
    res = drv.execute_async_script("""
        var done = arguments[arguments.length - 1];
        axe.run(document, {resultTypes: ['violations']}).then(function (r) {
          done(r.violations.map(function (v) {
            return {id: v.id, impact: v.impact, help: v.help,
                    nodes: v.nodes.slice(0, 3).map(function (n) { return n.target.join(' ') + ' :: ' + n.failureSummary; })};
          }));
        }, function (e) { done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]); });
    """)
    return [v for v in res if v["impact"] in ("serious", "critical")]


def shots_folder(fallback):
    """The screenshot folder: `$DOSSIER_SHOTS`, else `fallback`; made and printed."""
    shots = pathlib.Path(os.environ.get("DOSSIER_SHOTS") or fallback)
    shots.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {shots}")
    return shots


def set_scheme(drv, scheme):
    drv.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})


def set_size(drv, w, h):
    drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                        {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": w < PHONE_WIDTH})


def each_view(drv, schemes=SCHEMES, sizes=SIZES):
    """Sets each colour scheme and, within it, each window size in turn on the loaded
    page; yields (scheme, width, height) once each is set."""
    for scheme in schemes:
        set_scheme(drv, scheme)
        for w, h in sizes:
            set_size(drv, w, h)
            yield scheme, w, h


def look(drv, shots, name, scheme, w, h):
    """At the view now set: saves `<name>-<w>-<scheme>.png` and returns the problems,
    each led by where it was seen: axe's violations and, on a phone, sideways scrolling."""
    where = f"{name} {w}px {scheme}"
    drv.save_screenshot(str(shots / f"{name}-{w}-{scheme}.png"))
    problems = [f"{where}: axe {v['impact']} {v['id']} ({v['help']}): {v['nodes']}" for v in run_axe(drv)]
    if w < PHONE_WIDTH:
        sw, iw = drv.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        if sw > iw:
            problems.append(f"{where}: page scrolls sideways ({sw} > {iw})")
    return problems
