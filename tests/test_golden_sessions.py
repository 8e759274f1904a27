"""Regression: seeded bot sessions under every preset and the variant rule sets give the
same hand history, event for event, as when these hashes were recorded (before the engine's
two resolution paths were folded into one pipeline, issue 8). A change of any result (who
wins, who matches, what is dealt, an event's fields) changes a hash; if the change is
intended, re-record with ``python tests/golden_sessions.py`` and say why in the commit.
"""

from __future__ import annotations

from golden_sessions import hashes, rule_sets

from gutskit.core.rules import PRESETS

GOLDEN: dict[str, str] = {
    "default": "c21e20bc1d39646f3d70edab1d76c07b896ad62f",
    "german-3card": "c21e20bc1d39646f3d70edab1d76c07b896ad62f",
    "german-2card": "c624a9756aa29478cb635bd95282ae67f72237d3",
    "french-3card": "c21e20bc1d39646f3d70edab1d76c07b896ad62f",
    "french-2card": "c624a9756aa29478cb635bd95282ae67f72237d3",
    "indonesian": "3a8f27993e65f8c4c1e1ef983cc53a47748f9fca",
    "pagat": "3a8f27993e65f8c4c1e1ef983cc53a47748f9fca",
    "estonian": "0f1b660b3452e04384a2d4f03de7eb71c3b09895",
    "social": "e62afad15b652ec0dec1209a2431d24ac039b2b1",
    "two-card": "c624a9756aa29478cb635bd95282ae67f72237d3",
    "three-card": "c21e20bc1d39646f3d70edab1d76c07b896ad62f",
    "monte-carlo": "d906667673932ad02f5a5c589d16ae6bae8c0646",
    "pass-the-trash": "4a2c0d18efdf288a17b8e213ec10b26711ac3edd",
    "hi-lo": "7b27e1d259846d09e12263b140f8cfca0244c03d",
    "no-peek": "3b2ff34d035d702007e6cce97def505b8d7b7b70",
    "pot-cap": "e62afad15b652ec0dec1209a2431d24ac039b2b1",
    "wimp-out": "c21e20bc1d39646f3d70edab1d76c07b896ad62f",
    "table-stakes": "5e6993ebd028cf738c798ab372d0d00989bb4eb5",
    "single-loser": "f834d2ab302f4687d06c81073ea01c2b6782c670",
    "ghost-hand": "612c1fb6e836b656d634853f7f8cfa5673b6b113",
    "all-out-penalty": "33d6e478d44d3420d44d2f334f1f4e6ad8d8068b",
    "drop": "70b8bdeeb5d945f5a1bcb0baefdc6c030c4b0ea6",
    "buy-in-limits": "6e01211236b931ac6b32bf6efdba1bcb0cab3de6",
    "estonian-full": "4c2689a3d2d6d7eac79903e7a2c0c8768de0521e",
    "hi-lo-2card": "e4c1a38428e8bbdd83bce0879a0af75748db0cc6",
    "ghost-2card-carry": "cb1fd7c9e1bc5d5c3e0a4e1ee91cfa894189d099",
    "community-hi-lo": "46019db2fa37d472cd357b79a65f486d6d7c3512",
    "community-ghost-worst": "8f4a47cdbf0e1f38a2e2489aa8132f51fbb35e3d",
    "pass-the-trash-2card": "46623763103ec87d682b680585e1ae526cf03e0e",
    "pass-the-trash-hi-lo": "56f3cdb70bf745323c67d0ac5340fc4a3ab5a377",
    "worst-loser-sequential": "f87b428bfeda7cedce79f4cdd5d4a4e4ce86d1a2",
    "best-pays-antes-community": "0c9173e7650593146703170c55ccbbe05733750b",
    "cap-match-10": "c30fae6ce16d39195034f29e70e3d0579a9f38f5",
    "cap-reserve-6": "d74ecaa244d02f5b8059dea5b23e6ded6eaf1309",
    "table-stakes-cap-reserve": "c8cbf57d3f83bdfdc8cd5d471339ff6d0fe50d7f",
    "debt": "fcc00a452641f41508035db21cb19b73d98222e9",
    "require-cover-uncontested": "6264f64b7cd7b38a3683cd1fa5a8712ea8606bc2",
    "no-peek-ghost": "b30f8bbf37b9e5084479e7db4d97a4119d8f89bb",
    "rebuys-no-suits": "4fa5516e8151612cfe5980b3c0901e47550b4774",
    "always-suits-odd-left": "a11bd11efe6f3a4e3e4e5628ff3375a42f4150e9",
}
"""Rule set -> SHA-1 over every event of its seeded sessions (``golden_sessions.digest``)."""


def test_every_preset_is_pinned() -> None:
    assert set(PRESETS) <= set(GOLDEN)
    assert set(rule_sets()) == set(GOLDEN)


def test_seeded_sessions_are_unchanged() -> None:
    found = hashes()
    changed = sorted(name for name in GOLDEN if found[name] != GOLDEN[name])
    assert changed == []
