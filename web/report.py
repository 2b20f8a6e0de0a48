"""The offline report of a game: one self-contained HTML file, every event with the table
drawn after it and the rules that applied, cut for the seat that asks for it.

The file has its styles inline and no script, so it opens from a USB stick or an e-mail with
no server and no internet. It is drawn from the same views as the pages (``view_for`` of the
seat, computed on the server over the full log), so a player's report shows only what that
player saw at the table; the judge's shows everything.
"""

from __future__ import annotations

import base64
import hashlib
from html import escape

from referee.service import Referee
from referee.words import head_text
from web import i18n
from web.games import PageModule, page_for, seat_title, seats
from web.present import replay_frames

CSS = """
body { font: 15px/1.4 system-ui, sans-serif; color: #1d1d1f; margin: 0 auto; max-width: 760px;
  padding: 10px; }
h1 { font-size: 1.4rem; } .meta { color: #555; }
section.ev { border-top: 1px solid #ccc; padding: 10px 0; page-break-inside: avoid; }
.seq { font-family: ui-monospace, monospace; color: #555; }
.rules { font-size: .9rem; color: #444; }
.hands { font-size: .9rem; }
.index ol { font-size: .9rem; padding-left: 1.5em; }
code { font-family: ui-monospace, monospace; }
"""


def report_style(pm: PageModule) -> str:
    """The report's one inline style sheet."""
    return f"{CSS}{pm.svg_css}"


def style_source(pm: PageModule) -> str:
    """The CSP source that lets the served report apply its inline style sheet (and nothing
    else inline): the sheet's SHA-256."""
    digest = hashlib.sha256(report_style(pm).encode()).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def render_report(ref: Referee, game: str, seat: str, *, fingerprint: str | None = None) -> str:
    """The report of ``game`` as ``seat`` may read it, in the request's language (its
    ``<html lang>`` names it; outside a request, English). Raises ServiceError (NotFound) for an
    unknown game, Forbidden for an unknown seat."""
    view = ref.view(game, seat)
    pm = page_for(view)
    frames = replay_frames(ref, pm, game, seat)
    head = ref.head(game)
    players = view.players
    last = frames[-1]["view"]
    title = escape(pm.title)
    lang = i18n.lang()
    me = escape(seat_title(pm, seat))
    who = " · ".join(f"{escape(t)}: {escape(str(players.get(s, t)))}" for s, t in seats(pm))
    meta = _(
        "%(players)s · profile %(profile)s · as seen by %(seat)s",
        players=who,
        profile=escape(str(last.get("profile"))),
        seat=me,
    )
    head_line = escape(head_text(head["seq"], head["hash"]))
    if fingerprint:
        heads = _(
            "Log head <strong>%(head)s</strong> · server key %(key)s",
            head=head_line,
            key=escape(fingerprint),
        )
    else:
        heads = _("Log head <strong>%(head)s</strong>", head=head_line)
    parts = [
        f'<!doctype html><html lang="{escape(lang)}"><head><meta charset=utf-8>',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<link rel="icon" href="data:,">',
        "<title>"
        + _("%(title)s · game %(game)s · %(seat)s", title=title, game=escape(game), seat=me)
        + "</title>",
        f"<style>{report_style(pm)}</style></head><body>",
        "<h1>" + _("%(title)s · game %(game)s", title=title, game=escape(game)) + "</h1>",
        f'<p class="meta">{meta}</p>',
        f'<p class="meta">{heads}</p>',
    ]
    # an index of the events at the top, and the end one tap away
    parts.append(
        '<nav class="index" id="index"><p><a href="#end">' + _("Go to the end") + "</a></p><ol>"
    )
    for fr in frames:
        rec = fr["record"]
        text = i18n.say(rec["text"])
        if len(text) > 80:  # cut at a word, and say so
            text = text[:79].rsplit(" ", 1)[0] + "…"
        parts.append(f'<li><a href="#e{rec["seq"]}">#{rec["seq"]}</a> {escape(text)}</li>')
    parts.append("</ol></nav>")
    for fr in frames:
        rec = fr["record"]
        cites = [i18n.say(c) for c in pm.citations(fr["rules"])]
        parts.append(f'<section class="ev" id="e{rec["seq"]}">')
        parts.append(
            f'<p><span class="seq">#{rec["seq"]}</span> {escape(rec["stamp"])} '
            f"<strong>{escape(rec['seat'])}</strong>: {escape(i18n.say(rec['text']))}</p>"
        )
        if cites:
            parts.append(
                '<ul class="rules">' + "".join(f"<li>{escape(c)}</li>" for c in cites) + "</ul>"
            )
        parts.append(pm.table_svg(fr["view"], seat=seat, tappable=False))
        parts.append(pm.extras_html(fr["view"]))
        parts.append("</section>")
    parts.append('<section id="end">')
    if last.get("phase") == "over":
        w = str(last.get("winner") or "")
        winner = escape(seat_title(pm, w) if w else "")
        why = escape(i18n.say(pm.reason_text(last.get("reason"))))
        parts.append(
            "<p>" + _("<strong>%(seat)s wins</strong>: %(why)s", seat=winner, why=why) + "</p>"
        )
    else:
        parts.append("<p>" + _("The game is not over: this is where it stands.") + "</p>")
    parts.append('<p><a href="#index">' + _("Back to the index") + "</a></p></section>")
    parts.append("</body></html>")
    return "".join(parts)


def _(text: str, **values: str) -> str:
    """``text`` in the request's language, its values (escaped HTML already) put in, and the
    translation itself escaped but for the tags the English has (``<strong>``)."""
    said = i18n.gettext(text)  # the template alone: the values are HTML already
    safe = str(escape(said)).replace("&lt;strong&gt;", "<strong>")
    safe = safe.replace("&lt;/strong&gt;", "</strong>")
    return safe % values if values else safe
