"""The server side of the online table people expect (issue 10, part 2): the invite QR
code, ..."""

from __future__ import annotations

from pathlib import Path

import segno
from server_support import running_server

from gutskit.server.web import invite_qr_svg


def test_the_invite_qr_code_is_the_rooms_link(tmp_path: Path) -> None:
    with running_server(f"sqlite:///{tmp_path / 'qr.db'}") as server:
        created = server.create_room("Ana")
        response = server.get(f"/api/rooms/{created['room_id']}/qr.svg")
        assert response.status_code == 200
        assert response.headers["content-type"] == "image/svg+xml"
        # the same drawing as segno's for the room's invite link
        assert response.text == invite_qr_svg(created["url"])
        assert "<svg" in response.text and "<path" in response.text
        assert segno.make_qr(created["url"], error="m").designator == "3-M"  # small
        missing = server.get("/api/rooms/nosuchroom/qr.svg")
        assert missing.status_code == 404
        assert missing.json() == {"detail": "no room 'nosuchroom'"}
