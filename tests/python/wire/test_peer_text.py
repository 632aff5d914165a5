"""Peer-chosen text shown in logs and replies: one printable line, bounded."""

from coupler.wire.peer_text import PEER_TEXT_LIMIT, shown


def test_ordinary_names_are_shown_unchanged():
    assert shown("arm") == "arm"
    assert shown("bras_gauche_é") == "bras_gauche_é"


def test_a_newline_cannot_start_a_forged_log_line():
    assert shown("arm\nWARNING forged") == "arm\\nWARNING forged"


def test_control_characters_are_escaped():
    assert shown("a\x1b[2Jb\x00") == "a\\x1b[2Jb\\x00"


def test_a_backslash_is_escaped_so_an_escape_cannot_be_faked():
    assert shown("a\\nb") == "a\\\\nb"


def test_a_long_text_is_cut_with_an_ellipsis_naming_its_length():
    cut = shown("x" * 1_000_000)
    assert cut == "x" * PEER_TEXT_LIMIT + "… (1000000 characters)"


def test_a_text_of_exactly_the_limit_is_not_cut():
    assert shown("y" * PEER_TEXT_LIMIT) == "y" * PEER_TEXT_LIMIT


def test_bytes_that_are_not_utf8_are_shown_with_a_replacement_character():
    assert shown(b"ok\xff\n") == "ok\ufffd\\n"
