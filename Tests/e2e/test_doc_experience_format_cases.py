"""Oracle for docs/experience-format.md: one rule at a time, and random faults, against validate.

Each case is a valid experience (`base`) with one change; the doc's rules, stated once in
test_doc_experience_format.py (`doc_issues`), say whether it is an error and where, and
`dossier experiences validate` must agree: exit status 1 exactly when the doc finds an
error, an error printed `file:line:` at the key's line or its object's line for each fault,
no error elsewhere, and nothing changed on disk.
"""
import pathlib
import random

import pytest

from test_doc_experience_format import (BAD_MEDIA, GOOD_MEDIA, IMAGE_EXT, SOUND_EXT, VIDEO_EXT, Raw,
                                        check_against_doc, write_media)

# MARK: - Cases


def door(target, **kw):
    return {"kind": "door", "yaw": 10, "pitch": 0, "label": "Go on", "target": target, **kw}


def sound(media="media/s.wav", **kw):
    return {"kind": "sound", "yaw": -20, "pitch": 5, "label": "Hello", "media": media, **kw}


def base():
    return {
        "title": "At the dentist",
        "description": "A visit.",
        "panoramas": [
            {"id": "waiting", "title": "Waiting room", "image": "media/a.jpg",
             "triggers": [sound(), door("chair")]},
            {"id": "chair", "title": "Chair", "image": "media/c.png",
             "triggers": [{"kind": "video", "yaw": 0, "pitch": 0, "label": "Watch", "media": "media/v.mp4"},
                          {"kind": "note", "yaw": 1, "pitch": 1, "label": "Read me", "text": "You wait here."}]},
        ],
    }


def top(**kw):
    e = base()
    for k, v in kw.items():
        if v is DELETE:
            e.pop(k, None)
        else:
            e[k] = v
    return e


def pano(i=0, **kw):
    e = base()
    for k, v in kw.items():
        if v is DELETE:
            e["panoramas"][i].pop(k, None)
        else:
            e["panoramas"][i][k] = v
    return e


def trig(j, i=0, **kw):
    e = base()
    t = e["panoramas"][i]["triggers"][j]
    for k, v in kw.items():
        if v is DELETE:
            t.pop(k, None)
        else:
            t[k] = v
    return e


DELETE = object()
CASES = {
    "base": base(),
    "title-4": top(title="Abcd"), "title-3": top(title="Abc"), "title-16": top(title="a" * 16),
    "title-17": top(title="a" * 17), "title-spaces-count": top(title=" ab "),
    "title-16-emoji": top(title="\U0001F600" * 16), "title-17-umlaut": top(title="ü" * 17),
    "title-null": top(title=None), "title-blank": top(title="     "), "title-absent": top(title=DELETE),
    "title-number": top(title=1234), "title-empty": top(title=""),
    "desc-128": top(description="d" * 128), "desc-129": top(description="d" * 129),
    "desc-empty": top(description=""), "desc-list": top(description=["x"]),
    "kind-custom-owner": top(kind="custom", owner="sam"), "kind-custom-no-owner": top(kind="custom"),
    "kind-other": top(kind="Premade"), "kind-premade": top(kind="premade"),
    "first-ok": top(firstPanorama="chair"), "first-missing": top(firstPanorama="hall"),
    "final-ok": top(finalPanorama="waiting"), "final-missing": top(finalPanorama="Chair"),
    "first-default-id": top(firstPanorama="p1"),
    "panoramas-empty": top(panoramas=[]), "panoramas-absent": top(panoramas=DELETE),
    "panoramas-object": top(panoramas={"a": 1}), "unknown-top": top(titel="Abcd"),
    "top-list": [base()],
    "id-64": pano(id="a" * 64), "id-65": pano(id="a" * 65), "id-dash-first": pano(id="-a"),
    "id-underscore-first": pano(id="_a"), "id-digit-first": pano(id="9a_b-C"), "id-umlaut": pano(id="ü"),
    "id-space": pano(id="a b"), "id-empty": pano(id=""), "id-dup": pano(id="chair"),
    "id-number": pano(id=7), "pano-title-60": pano(title="t" * 60), "pano-title-61": pano(title="t" * 61),
    "pano-title-empty": pano(title=""), "pano-title-absent": pano(title=DELETE),
    "image-absent": pano(image=DELETE), "image-jpeg": pano(image="media/b.jpeg"),
    "image-wav": pano(image="media/s.wav"), "image-leading-slash": pano(image="/media/a.jpg"),
    "image-dotdot": pano(image="media/../media/a.jpg"), "image-escape": pano(image="../outside.jpg"),
    "image-dot": pano(image="./media/a.jpg"), "image-dot-mid": pano(image="media/./a.jpg"),
    "image-empty-comp": pano(image="media//a.jpg"), "image-backslash": pano(image="media\\a.jpg"),
    "image-space": pano(image="media/a b.jpg"), "image-hash": pano(image="media/a#.jpg"),
    "image-missing-file": pano(image="media/zz.jpg"), "image-bad-jpg": pano(image="media/bad.jpg"),
    "image-bad-png": pano(image="media/bad.png"), "image-bad-jpeg": pano(image="media/bad.jpeg"),
    "image-empty": pano(image=""), "image-no-ext": pano(image="media"), "image-folder": pano(image="media/"),
    "startyaw-180": pano(startYaw=-180), "startyaw-over": pano(startYaw=180.5),
    "startpitch-90": pano(startPitch=90), "startpitch-over": pano(startPitch=-90.01),
    "startyaw-string": pano(startYaw="10"), "startyaw-bool": pano(startYaw=True),
    "startyaw-neg-zero": pano(startYaw=Raw("-0", -0.0)), "startpitch-exp": pano(startPitch=Raw("8.5e1", 85.0)),
    "triggers-absent": pano(1, triggers=DELETE), "triggers-empty": pano(1, triggers=[]),
    "triggers-object": pano(1, triggers={}), "unknown-pano": pano(hfov=100),
    "t-unknown": trig(0, volume=1), "t-kind-absent": trig(0, kind=DELETE), "t-kind-bad": trig(0, kind="info"),
    "t-yaw-absent": trig(0, yaw=DELETE), "t-pitch-absent": trig(0, pitch=DELETE),
    "t-yaw-180": trig(0, yaw=180), "t-yaw-over": trig(0, yaw=-180.001), "t-pitch-over": trig(0, pitch=91),
    "t-yaw-string": trig(0, yaw="10"), "t-yaw-null": trig(0, yaw=None),
    "t-size-half": trig(0, size=0.5), "t-size-3": trig(0, size=3), "t-size-small": trig(0, size=0.49),
    "t-size-big": trig(0, size=3.01), "t-size-string": trig(0, size="1"),
    "t-label-40": trig(0, label="l" * 40), "t-label-41": trig(0, label="l" * 41), "t-label-empty": trig(0, label=""),
    "t-label-spaces": trig(0, label="   "), "t-label-absent": trig(0, label=DELETE),
    "t-label-40-umlaut": trig(0, label="ä" * 40),
    "t-id-bad": trig(0, id="no good"), "t-id-65": trig(0, id="t" * 65), "t-id-64": trig(0, id="t" * 64),
    "sound-no-media": trig(0, media=DELETE), "sound-video-file": trig(0, media="media/v.mp4"),
    "sound-target": trig(0, target="chair"), "sound-text": trig(0, text="hi"),
    "sound-targetyaw": trig(0, targetYaw=10), "door-media": trig(1, media="media/s.wav"),
    "door-no-target": trig(1, target=DELETE), "door-bad-target": trig(1, target="nowhere"),
    "door-self": trig(1, target="waiting"), "door-target-yaw": trig(1, targetYaw=-180, targetPitch=90),
    "door-text": trig(1, text="hi"), "video-no-media": trig(0, 1, media=DELETE),
    "video-sound-file": trig(0, 1, media="media/s.wav"), "video-target": trig(0, 1, target="waiting"),
    "note-no-text": trig(1, 1, text=DELETE), "note-text-500": trig(1, 1, text="n" * 500),
    "note-text-501": trig(1, 1, text="n" * 501), "note-text-spaces": trig(1, 1, text="  "),
    "note-target": trig(1, 1, target="chair"), "note-text-number": trig(1, 1, text=5),
    "trigger-not-object": pano(1, triggers=["sound"]), "unicode-title": top(title="Zahnärztin 😀"),
    "image-null": pano(image=None), "t-id-number": trig(0, id=7), "t-id-true": trig(0, id=True),
    "t-id-list": trig(0, id=["t1"]), "pano-title-null": pano(title=None), "t-label-null": trig(0, label=None),
    "t-kind-null": trig(0, kind=None), "door-target-null": trig(1, target=None),
}
CASES["t-id-dup"] = trig(0, id="same")
CASES["t-id-dup"]["panoramas"][0]["triggers"][1]["id"] = "same"
CASES["t-id-same-other-pano"] = trig(0, id="same")
CASES["t-id-same-other-pano"]["panoramas"][1]["triggers"][0]["id"] = "same"
for _name in GOOD_MEDIA:
    _ext = pathlib.PurePosixPath(_name).suffix
    if _ext in SOUND_EXT:
        CASES[f"good-{_name}"] = trig(0, media=f"media/{_name}")
    elif _ext in VIDEO_EXT:
        CASES[f"good-{_name}"] = trig(0, 1, media=f"media/{_name}")
for _name in BAD_MEDIA:
    _ext = pathlib.PurePosixPath(_name).suffix
    if _ext in IMAGE_EXT:
        CASES[f"bad-{_name}"] = pano(image=f"media/{_name}")
    elif _ext in SOUND_EXT:
        CASES[f"bad-{_name}"] = trig(0, media=f"media/{_name}")
    else:
        CASES[f"bad-{_name}"] = trig(0, 1, media=f"media/{_name}")
CASES["bad-folder.wav"] = trig(0, media="media/folder.wav")


@pytest.fixture(scope="module")
def media_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("xp")
    write_media(folder)
    return folder


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_rule_at_a_time_matches_the_doc(name, media_dir):
    check_against_doc(CASES[name], media_dir, name=f"{name}.json")


def mutate(rng, exp):
    """One random change: a value from a list of valid and invalid ones at a random place."""
    panos = exp["panoramas"]
    p = rng.choice(panos)
    t = rng.choice(p["triggers"]) if p.get("triggers") else None
    spots = [(exp, k) for k in ("title", "description", "kind", "owner", "firstPanorama", "finalPanorama")]
    spots += [(p, k) for k in ("id", "title", "image", "startYaw", "startPitch")]
    if t is not None:
        spots += [(t, k) for k in ("id", "kind", "yaw", "pitch", "size", "label", "media", "target",
                                    "targetYaw", "targetPitch", "text")]
    obj, key = rng.choice(spots)
    values = ["", " ", "Abcd", "a" * 16, "a" * 17, "chair", "waiting", "p1", "nowhere", "custom",
              "premade", "sam", 0, -180, 180, 90, -90, 90.5, 1, 0.5, 3, 3.5, True, [], "media/s.wav",
              "media/a.jpg", "media/v.webm", "media/../a.jpg", "media/bad.wav", "sound", "door", "note",
              "video", "x" * 41, "n" * 501, DELETE]
    if key == "title" and obj is exp:
        values.append(None)  # the doc gives null a meaning for the experience's title only
    if obj is not exp and key in ("image", "label", "kind", "yaw", "pitch", "media", "target", "text"):
        values.append(None)  # required (for some kinds): null is no value
    v = rng.choice(values)
    if v is DELETE:
        obj.pop(key, None)
    else:
        obj[key] = v


@pytest.mark.parametrize("seed", range(150))
def test_random_mutations_match_the_doc(seed, media_dir):
    rng = random.Random(seed)
    exp = base()
    for _ in range(rng.randint(1, 3)):
        mutate(rng, exp)
    # lines only where they cannot be argued: one fault per file is checked strictly above
    check_against_doc(exp, media_dir, name=f"rand{seed}.json", strict_lines=False)
