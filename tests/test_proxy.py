"""Behind a proxy (issue 35; docs/deploy.md's TLS in front): ``referee serve --proxy HOPS``
trusts that many proxies' X-Forwarded-* headers for the client's address, the scheme and the
host. Without it the headers are ignored: anyone can send them, and a client would choose its
own rate bucket."""

from __future__ import annotations

from test_rate_limits import assert_refused_for_rate
from web_helpers import Browser, make_app, new_game, referee_of

from web.cli import build_parser
from web.front import Front
from web.links import join_path

SPECTATORS = ("203.0.113.5", "198.51.100.7")
PROXY = "10.0.0.9"  # the proxy's own address, from which every request arrives


def spectators(hops: int) -> tuple[str, list[Browser]]:
    """A game, and two spectators whose requests all reach the app from the proxy's address
    (:data:`PROXY`) with their own address in X-Forwarded-For."""
    app = make_app(RATE_ADDRESS="8 per minute", RATE_SEAT="100 per minute", PROXY_HOPS=hops)
    created, _ = new_game(app)
    out = []
    for addr in SPECTATORS:
        b = Browser(app)
        b.client.environ_base["REMOTE_ADDR"] = PROXY
        b.client.environ_base["HTTP_X_FORWARDED_FOR"] = addr
        out.append(b)
    return created.game, out


def test_behind_a_trusted_proxy_each_client_address_has_its_own_rate() -> None:
    game, (a, b) = spectators(hops=1)
    for _ in range(8):
        assert a.get(f"/api/v1/games/{game}").status_code == 200
    assert_refused_for_rate(a.get(f"/api/v1/games/{game}"), "without a seat")
    assert b.get(f"/api/v1/games/{game}").status_code == 200  # another client: its own rate


def test_without_proxy_the_forwarded_address_is_ignored_and_cannot_pick_a_bucket() -> None:
    game, (a, b) = spectators(hops=0)
    for _ in range(8):
        assert a.get(f"/api/v1/games/{game}").status_code == 200
    # the header claims another client, but the address is the connection's: the same bucket
    assert_refused_for_rate(b.get(f"/api/v1/games/{game}"), "without a seat")


def test_behind_a_tls_proxy_the_seat_cookie_is_secure_and_links_are_https() -> None:
    app = make_app(PROXY_HOPS=1)
    created = referee_of(app).create_game()
    b = Browser(app)
    b.client.environ_base["HTTP_X_FORWARDED_PROTO"] = "https"
    b.client.environ_base["HTTP_X_FORWARDED_HOST"] = "league.example"
    code = created.codes["hera"]
    page = b.client.get(join_path(created.game, code))
    assert page.status_code == 200
    csrf = page.get_data(as_text=True).split('name="csrf" value="', 1)[1].split('"', 1)[0]
    r = b.client.post(
        join_path(created.game, code), data={"csrf": csrf}, base_url="http://localhost"
    )
    assert r.status_code == 303
    assert r.headers["Location"].startswith(("https://league.example/", "/"))
    cookies = r.headers.getlist("Set-Cookie")
    assert cookies and all("Secure" in c for c in cookies)


def test_without_proxy_a_forwarded_scheme_changes_nothing() -> None:
    app = make_app()
    created = referee_of(app).create_game()
    b = Browser(app)
    b.client.environ_base["HTTP_X_FORWARDED_PROTO"] = "https"
    code = created.codes["hera"]
    page = b.client.get(join_path(created.game, code))
    csrf = page.get_data(as_text=True).split('name="csrf" value="', 1)[1].split('"', 1)[0]
    r = b.client.post(join_path(created.game, code), data={"csrf": csrf})
    assert r.status_code == 303
    assert not any("Secure" in c for c in r.headers.getlist("Set-Cookie"))


def test_serve_takes_the_proxies_trusted_and_the_front_then_caps_no_address() -> None:
    args = build_parser().parse_args(["serve", "--proxy", "1"])
    assert args.proxy == 1
    assert build_parser().parse_args(["serve"]).proxy == 0
    behind = Front(
        make_app(PROXY_HOPS=1, IDLE_CONNECTIONS=500, NEW_CONNECTIONS_PER_CLIENT=8), 4, 5.0
    )
    direct = Front(make_app(IDLE_CONNECTIONS=500, NEW_CONNECTIONS_PER_CLIENT=8), 4, 5.0)
    assert behind.doorman.per_client == 500  # the proxy's own address carries every client
    assert direct.doorman.per_client == 8
