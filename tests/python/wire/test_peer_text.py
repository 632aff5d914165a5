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


def test_a_bidirectional_override_cannot_reorder_what_a_log_line_shows():
    assert shown("arm\u202egpj.exe") == "arm\\u202egpj.exe"


def test_unicode_line_and_paragraph_separators_cannot_start_a_forged_line():
    assert shown("a\u2028b\u2029c\x85d") == "a\\u2028b\\u2029c\\x85d"


def test_invisible_characters_are_shown_escaped():
    assert shown("ar\u200bm\ufeff\u00ad") == "ar\\u200bm\\ufeff\\xad"


def test_a_lone_surrogate_is_shown_escaped():
    assert shown("x\udc80y") == "x\\udc80y"


def test_characters_beyond_the_basic_plane_are_shown_as_themselves_or_escaped():
    assert shown("\U0001f916\U000f0001") == "\U0001f916\\U000f0001"


def test_the_cut_counts_characters_not_bytes():
    assert shown("é" * 201) == "é" * PEER_TEXT_LIMIT + "… (201 characters)"
