"""Profiles: the one place that says what each parsing policy means, layer by layer.

Everything else (both parsers, the zoo, the checks, the fixtures, the demo
server's CLI) reads this module, so adding a profile is one entry in PROFILES.

* ``strict`` (the default, the course's policy): invalid UTF-8 is an error
  (``DecodeError``), and so is a stream that ends inside a line or an event
  (``IncompleteStream``).
* ``browser`` (the WHATWG standard's behaviour): invalid UTF-8 becomes U+FFFD,
  and an unfinished event at the end of the stream is discarded.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    """What one profile means for each layer."""

    name: str
    #: bytes -> text: the codec's ``errors`` for invalid UTF-8 ("strict" raises, "replace" gives U+FFFD).
    decode_errors: str
    #: lines -> events: whether a stream that ends inside a line or an event raises IncompleteStream.
    incomplete_is_error: bool
    #: one sentence for learners, shown by the demo server's CLI and the lessons.
    summary: str


PROFILES: dict[str, Profile] = {
    profile.name: profile
    for profile in (
        Profile("strict", "strict", True, "invalid UTF-8 and a stream cut inside an event are errors"),
        Profile(
            "browser", "replace", False, "the WHATWG standard: U+FFFD for invalid UTF-8, an unfinished event dropped"
        ),
    )
}

DEFAULT_PROFILE = "strict"


def get_profile(name: str) -> Profile:
    """The profile called ``name``; an unknown name is refused, naming the known ones."""
    try:
        return PROFILES[name]
    except (KeyError, TypeError):
        raise ValueError(f"profile must be one of {tuple(PROFILES)}, got {name!r}") from None
