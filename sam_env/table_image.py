"""The table as an RGB picture, for ``render_mode="rgb_array"`` (videos of hands with gymnasium's ``RecordVideo``).

Drawn with Pillow, imported on the first picture (never by ``import sam_env``). The table is seen
from one seat, at the bottom: its cards face up, the other seats' face down (``reveal=True`` shows
them), seats placed round the table in turn order (counter-clockwise, docs/rules.md §1). Each seat shows
its money so far in the hand, its cards left and its tags: to act, passed, báo 1, báo Sâm, out,
winner. The middle shows the play to beat, with the seat that made it and the chop money at stake.

Cards are readable without colour: a rank and a suit *shape* (drawn as polygons, so no font needs suit
glyphs), in the four-colour deck's convention with colour-blind-safe colours (Okabe and Ito):
♠ black, ♣ bluish green, ♦ blue, ♥ vermillion. Text uses DejaVu Sans as shipped inside matplotlib (a
dependency), else Pillow's own scalable font (``ImageFont.load_default(size=…)``, Pillow ≥ 10.1), with
accents dropped when that font lacks them — never a font of the system.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from .core.cards import RANK_NAMES, cards_of
from .core.combos import COMBOS
from .core.game import NO_PLAY, Hand, Phase

WIDTH, HEIGHT = 960, 640
"""Picture size in pixels (even, as video encoders want)."""
FELT, FELT_DARK, INK, PAPER, GOLD = (24, 98, 62), (16, 70, 44), (250, 250, 240), (255, 255, 250), (240, 190, 40)
SUIT_COLOURS = ((0, 0, 0), (0, 158, 115), (0, 114, 178), (213, 94, 0))
"""♠ ♣ ♦ ♥ in Okabe and Ito's palette: black, bluish green, blue, vermillion."""
BACK, BACK_EDGE = (52, 84, 150), (230, 230, 240)
BIG, SMALL = (48, 68), (34, 48)
"""Card sizes: the observer's cards and the play to beat; the other seats' cards."""

_PLACES = {
    2: ((0.5, 0.86), (0.5, 0.13)),
    3: ((0.5, 0.86), (0.8, 0.2), (0.2, 0.2)),
    4: ((0.5, 0.86), (0.86, 0.45), (0.5, 0.13), (0.14, 0.45)),
    5: ((0.5, 0.86), (0.87, 0.5), (0.67, 0.13), (0.33, 0.13), (0.13, 0.5)),
}
"""Centre of each seat's place, by seat relative to the observer (0 at the bottom, then to its right)."""


class _Fonts:
    """Three sizes of one scalable font, and whether it has the game's accented letters."""

    def __init__(self) -> None:
        from PIL import ImageFont

        path = _dejavu()
        load = (lambda size: ImageFont.truetype(str(path), size)) if path else _default_font
        self.unicode = path is not None
        self.small, self.text, self.large = load(14), load(17), load(22)

    def fold(self, text: str) -> str:
        """``text`` as this font can write it: accents dropped from a font without them."""
        if self.unicode:
            return text
        text = text.replace("đ", "d").replace("Đ", "D").replace("▶", ">").replace("·", "-")
        return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _default_font(size: int) -> Any:
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def _dejavu() -> Path | None:
    """DejaVu Sans from matplotlib's package data, if matplotlib is installed."""
    try:
        import matplotlib
    except ImportError:
        return None
    path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    return path if path.is_file() else None


@cache
def _fonts() -> _Fonts:
    return _Fonts()


def table_image(hand: Hand, seat: int = 0, reveal: bool = False) -> np.ndarray:
    """``uint8[HEIGHT, WIDTH, 3]``: ``hand`` seen from ``seat`` (other hands face down unless ``reveal``)."""
    from PIL import Image, ImageDraw

    n = hand.n_players
    if not 0 <= seat < n:
        raise ValueError(f"seat must be a seat in 0..{n - 1}, got {seat!r}")
    image = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    draw = ImageDraw.Draw(image)
    draw.ellipse((70, 90, WIDTH - 70, HEIGHT - 150), fill=FELT_DARK)
    fonts = _fonts()
    net = hand.net()
    for k, (fx, fy) in enumerate(_PLACES[n]):
        s = (seat + k) % n
        _seat(draw, fonts, hand, s, s == seat, reveal, net[s], (int(fx * WIDTH), int(fy * HEIGHT)))
    _middle(draw, fonts, hand, seat, reveal)
    return np.asarray(image, dtype=np.uint8)


def _seat(
    draw: Any, fonts: _Fonts, hand: Hand, s: int, own: bool, reveal: bool, money: int, at: tuple[int, int]
) -> None:
    """One seat's place: name, money and tags on a line, its cards below (face up if ``own`` or ``reveal``)."""
    x, y = at
    cards = cards_of(hand.cards[s])
    size = BIG if own else SMALL
    one_row = own or hand.n_players == 2 or x == WIDTH // 2
    rows = [cards] if one_row else [cards[:5], cards[5:]]
    step = size[0] + 4
    width = max(5 * step, max((len(r) for r in rows), default=0) * step)
    height = len(rows) * (size[1] + 4)
    top = y - (height + 26) // 2 if not own else y - height // 2 - 4
    acting = not hand.over and hand.to_act == s
    box = (x - width // 2 - 8, top - 6, x + width // 2 + 8, top + 26 + height + 4)
    draw.rounded_rectangle(box, radius=10, outline=GOLD if acting else FELT_DARK, width=4 if acting else 1)
    label = f"{'▶ ' if acting else ''}seat {s}{' (you)' if own else ''}   {money:+d}X"
    tags = _tags(hand, s)
    _text(draw, fonts, (box[0] + 8, top), label + ("   " + ", ".join(tags) if tags else ""), fonts.text, INK)
    shown = own or reveal
    for r, row in enumerate(rows):
        left = x - len(row) * step // 2
        for i, card in enumerate(row):
            xy = (left + i * step, top + 26 + r * (size[1] + 4))
            _card(draw, fonts, xy, size, card if shown else None)
    if not cards:
        _text(draw, fonts, (x - 30, top + 30), "no cards", fonts.small, INK)


def _tags(hand: Hand, s: int) -> list[str]:
    tags = []
    if hand.phase is Phase.PLAY and hand.table_combo != NO_PLAY and hand.passed[s]:
        tags.append("passed")
    if hand.n_cards[s] == 1:
        tags.append("báo 1")
    if hand.sam_declarer == s:
        tags.append("báo Sâm")
    if hand.out[s]:
        tags.append("out")
    if hand.result is not None and hand.result.winner == s:
        tags.append("winner")
    return tags


def _middle(draw: Any, fonts: _Fonts, hand: Hand, seat: int, reveal: bool) -> None:
    """The phase, the play to beat (its cards, who made it, chop money at stake), or the hand's result."""
    cx, cy = WIDTH // 2, HEIGHT // 2 - 40
    lines = [f"Sâm Lốc · {hand.n_players} seats"]
    if hand.result is not None:
        res = hand.result
        who = f"seat {res.winner} wins" if res.winner is not None else "no winner"
        kind = f" ({res.instant_win})" if res.instant_win else ""
        lines += [f"hand over: {who}, {res.reason.value.replace('_', ' ')}{kind}"]
        lines += ["net: " + "  ".join(f"seat {s} {x:+d}X" for s, x in enumerate(res.net))]
    elif hand.instant_winner is not None and (reveal or hand.instant_winner == seat):
        lines += [f"seat {hand.instant_winner}: instant win ({hand.instant_win}) to reveal"]
    elif hand.phase is Phase.SAM_DECISION:
        lines += [f"báo Sâm? seat {hand.to_act} answers"]
    elif hand.table_combo == NO_PLAY:
        lines += [f"free lead: seat {hand.to_act}"]
    else:
        chain = hand.chain_value()
        extra = f", chop money at stake {chain}X" if chain else ""
        lines += [f"to beat: {COMBOS[hand.table_combo].name} by seat {hand.table_owner}{extra}"]
        table = _table_cards(hand)
        step = BIG[0] + 4
        left = cx - len(table) * step // 2
        for i, card in enumerate(table):
            _card(draw, fonts, (left + i * step, cy + 30), BIG, card)
    for i, line in enumerate(lines):
        font = fonts.large if i == 0 else fonts.text
        _text(draw, fonts, (cx, cy - 40 + 26 * i), line, font, INK, anchor="ma")


def _table_cards(hand: Hand) -> list[int]:
    """The cards of the play to beat: per rank, the owner's highest-suited played cards of that rank.

    A play takes the lowest suits its seat holds of each rank (:mod:`sam_env.core.game`), so the
    owner's latest play of a rank holds the highest suits of what it has played of that rank.
    """
    played = hand.played[hand.table_owner]
    out = []
    for rank, count in COMBOS[hand.table_combo].needs:
        of_rank = [c for c in cards_of(played) if c // 4 == rank]
        out += of_rank[-count:]
    return out


def _card(draw: Any, fonts: _Fonts, xy: tuple[int, int], size: tuple[int, int], card: int | None) -> None:
    """A card at ``xy`` (top left): rank and suit shape in the suit's colour, or its back (``None``)."""
    x, y = xy
    w, h = size
    if card is None:
        draw.rounded_rectangle((x, y, x + w, y + h), radius=5, fill=BACK, outline=BACK_EDGE, width=2)
        draw.rounded_rectangle((x + 5, y + 5, x + w - 5, y + h - 5), radius=3, outline=BACK_EDGE, width=1)
        return
    rank, suit = divmod(card, 4)
    colour = SUIT_COLOURS[suit]
    draw.rounded_rectangle((x, y, x + w, y + h), radius=5, fill=PAPER, outline=(60, 60, 60), width=1)
    font = fonts.text if w >= BIG[0] else fonts.small
    _text(draw, fonts, (x + 4, y + 2), RANK_NAMES[rank], font, colour)
    _suit(draw, suit, x + w / 2, y + h * 0.64, w * 0.26, colour)


def _suit(draw: Any, suit: int, cx: float, cy: float, r: float, colour: tuple[int, int, int]) -> None:
    """A suit's shape of half-height ``r`` centred at (``cx``, ``cy``): ♠ 0, ♣ 1, ♦ 2, ♥ 3."""

    def disc(x: float, y: float, radius: float) -> None:
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=colour)

    if suit == 2:
        draw.polygon([(cx, cy - r), (cx + 0.72 * r, cy), (cx, cy + r), (cx - 0.72 * r, cy)], fill=colour)
    elif suit == 3:
        disc(cx - r / 2, cy - r / 3, r / 2)
        disc(cx + r / 2, cy - r / 3, r / 2)
        draw.polygon([(cx - r, cy - r / 6), (cx + r, cy - r / 6), (cx, cy + r)], fill=colour)
    elif suit == 0:
        disc(cx - r / 2, cy + r / 5, r / 2)
        disc(cx + r / 2, cy + r / 5, r / 2)
        draw.polygon([(cx - r, cy + r / 8), (cx + r, cy + r / 8), (cx, cy - r)], fill=colour)
        draw.polygon([(cx, cy + r / 4), (cx - r / 3, cy + r), (cx + r / 3, cy + r)], fill=colour)
    else:
        disc(cx, cy - r / 2, 0.42 * r)
        disc(cx - r / 2, cy + r / 6, 0.42 * r)
        disc(cx + r / 2, cy + r / 6, 0.42 * r)
        draw.polygon([(cx, cy), (cx - r / 3, cy + r), (cx + r / 3, cy + r)], fill=colour)


def _text(
    draw: Any,
    fonts: _Fonts,
    xy: tuple[float, float],
    text: str,
    font: Any,
    colour: tuple[int, int, int],
    anchor: str = "la",
) -> None:
    draw.text(xy, fonts.fold(text), font=font, fill=colour, anchor=anchor)
