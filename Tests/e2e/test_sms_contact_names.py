"""Contact names on a terminal (docs/securesms-cli.md): `contact add` and `contact edit`
refuse control and text-direction characters, and `contact list` prints a name read from
a keystore written elsewhere with those characters as `\\u{XXXX}`, never raw."""
import pytest

import sms_keystore_oracle as o

HIDDEN = ["\x1b[2J", "a\tb", "\u202eevil", "x\u2066y", "\u200fz", "bell\x07", "c1\x85"]


@pytest.mark.parametrize("name", HIDDEN)
def test_add_and_edit_refuse_a_name_with_control_or_direction_characters(dossier_bin, tmp_path, name):
    ks = tmp_path / "k.keystore"
    sms = o.Sms(dossier_bin, ks)
    sms.run("init", "--kdf-log2n", "10", "--allow-weak")
    before = ks.read_bytes()
    _, _, err = sms.run("contact", "add", name, "--later", rc=1)
    assert "a contact name cannot hold control or text-direction characters" in err
    assert ks.read_bytes() == before   # nothing added
    sms.run("contact", "add", "Pat", "--later")
    _, _, err = sms.run("contact", "edit", "Pat", "--name", name, rc=1)
    assert "a contact name cannot hold control or text-direction characters" in err
    _, out, _ = sms.run("contact", "list")
    assert out.split("\t")[0] == "Pat"


def test_list_writes_hidden_characters_of_a_stored_name_as_escapes(dossier_bin, tmp_path):
    ks = tmp_path / "k.keystore"
    names = ["\x1b[31mred", "\u202eevil\u202c", "tab\there", "plain é"]
    o.write_keystore(ks, o.payload(*[o.contact(n) for n in names]))
    _, out, _ = o.Sms(dossier_bin, ks).run("contact", "list")
    shown = [line.split("\t")[0] for line in out.splitlines()]
    assert sorted(shown) == sorted(["\\u{001B}[31mred", "\\u{202E}evil\\u{202C}", "tab\\u{0009}here", "plain é"])
    assert not any(ch in out for ch in "\x1b\u202e\u202c")
    assert all(line.count("\t") == 4 for line in out.splitlines())


def test_a_long_name_is_still_refused_with_its_own_message(dossier_bin, tmp_path):
    sms = o.Sms(dossier_bin, tmp_path / "k.keystore")
    sms.run("init", "--kdf-log2n", "10", "--allow-weak")
    _, _, err = sms.run("contact", "add", "x" * 65, "--later", rc=1)
    assert "a contact name is 1 to 64 characters" in err
