"""Conversations in: turns as an agent has them (speaker, text, time, session), stored so that a
question about them finds them — derived at write time, deterministically, with no model.

Each turn is one episodic node, ``"Speaker: text"`` (plus ``[shares a photo: caption]``),
valid from its time, with its own id (given, or derived from where it sits); its metadata says
who spoke, the session, its place in the session, the date it was said, the names it mentions
(``names``, normal forms) and what its relative time words stand for (``dates``: "yesterday"
→ the day before it was said, "last Saturday", "two weeks ago", "last year", …, and the months
and days named without a year, "in May", "July 4th", in the year meant). Consecutive
turns of a session are joined by temporal edges (its neighbours); each person or thing named
(a speaker, a capitalised name) is an entity node named by its key (``names``), linked to the
turns that mention it by a ``related`` edge. A conversation may come a few turns a call: a
later call's turns are read together with the conversation's stored ones (``stored_turns``),
so a session goes on where it stopped and a name learnt later is read so in earlier turns —
the same nodes and edges as one call would make.

>>> when = "2023-05-08T13:56:00.000Z"
>>> dates_in("I went to a support group yesterday and last Saturday.", when)
{'yesterday': '7 May 2023', 'last saturday': '6 May 2023'}
>>> dates_in("We met in December, moved last May and marry on June 3rd.", when)
{'in december': 'December 2022', 'last may': 'May 2022', 'on june 3rd': '3 June 2023'}
>>> names_in("Yesterday Caroline and I went to New York with Mel's dog.", {"caroline"})
['Caroline', 'New York', 'Mel']
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..errors import InvalidInput
from ..names import normal_name
from ..records import ID_HEX, MAX_CONTENT, MemoryNode, check_id, check_text, kind_of, moment
from ..text import fold
from .when import MONTHS, WEEKDAYS, dates_in, said_in_words

#: fields a turn takes
TURN_FIELDS = ("speaker", "text", "time", "session", "id", "caption")
MAX_SPEAKER = 200
_PHOTO = " [shares a photo: "
#: words read otherwise than turns stored before were ("this weekend" said on a weekday: once the
#: past weekend, now the coming one): a stored turn that holds one is read anew at each write
_REREAD = re.compile(r"\bweekend\b", re.IGNORECASE)
#: capitalised words that begin sentences or stand for the speaker, not names
_NOT_NAMES = (
    frozenset(
        """i im ive id ill hey hi hello wow oh ok okay yes yeah no thanks thank yay aw aww awesome great cool nice
    sure well so and but or the a an this that these those it its my your our their we you he she they his her
    what when where why how who which congrats congratulations sounds good hope glad love happy sorry bye
    omg lol haha hahaha right totally definitely absolutely really amazing gonna gotta let lets mine
    yesterday today tonight tomorrow last next just also did does do is are was were am can could would should
    will shall might must has have had ugh oops whoa yikes gosh hmm huh ah ahh eh uh um yup yep nope nah phew
    ouch hooray cheers please ooh""".split()  # noqa: SIM905
    )
    | frozenset(WEEKDAYS)
    | frozenset(f"{day}s" for day in WEEKDAYS)
    | frozenset(MONTHS)
)
#: verbs an agent's conversation says as requests at a sentence's start before a name ("Bring
#: Comet", "Tell Marguerite"): their forms join ``_LEADING`` (verbs that are also first names —
#: Mark, Bill, Grant, Pat — are left out)
_VERBS = """bring give send fetch tell remind thank ask invite help keep let put wait look listen check show hold
    hug kiss feed wish say follow pick grab buy congratulate welcome greet text email phone message ring sign
    tag add write teach bake cook pay lend borrow owe introduce forgive blame trust miss""".split()  # noqa: SIM905
#: their irregular pasts
_PASTS = "brought gave sent told kept held said bought taught paid lent wrote".split()  # noqa: SIM905


def _forms(verb: str) -> set[str]:
    """A verb's forms as written in a sentence: the verb, -s, -ed and -ing (regular spellings).

    >>> sorted(_forms("bake")), sorted(_forms("fetch"))
    (['bake', 'baked', 'bakes', 'baking'], ['fetch', 'fetched', 'fetches', 'fetching'])
    """
    stem = verb[:-1] if verb.endswith("e") and not verb.endswith("ee") else verb
    third = f"{verb}es" if verb.endswith(("ch", "sh", "s", "x")) else f"{verb}s"
    return {verb, third, f"{stem}ed", f"{stem}ing"}


#: common words (verbs, adverbs, prepositions) that, capitalised as a sentence's first word, are
#: no part of the name after them ("Met Tom Hanks", "Visiting New York") — unless the
#: conversation knows them as a name (a speaker, or capitalised inside a sentence)
_LEADING = frozenset(
    """like liked likes love loved loves met meet meeting saw see seeing seen went go going goes got get getting
    made make making took take taking came come coming visited visit visiting visits watched watch watching
    read reading played play playing called call calling told tell telling asked ask asking found find finding
    met saw heard hear hearing thought think thinking knew know guess hoped hoping wanted want wish wished
    tried try trying started start starting finished finish bought buy buying tried talked talking talk
    speaking moved moving left leaving stayed staying spent spending traveled travelled traveling travelling
    flew flying drove driving walked walking ran running joined joining loving enjoyed enjoying enjoy
    after before since during from with without at in on for to of about as if because then now there here
    not never always sometimes often maybe perhaps actually honestly anyway finally recently also even still
    only once both either neither every each some any all many most more much such than though although
    while until unless speaking regarding between into onto over under near through dear""".split()  # noqa: SIM905
) | frozenset(_PASTS).union(*(_forms(verb) for verb in _VERBS))
#: titles and relations said before a person's name ("Auntie Pri", "Chef Tobias"): with a
#: speaker's name after them, they name that speaker
TITLES = frozenset(
    """aunt auntie aunty uncle grandma grandpa granny grandad granddad nana nan gran cousin chef coach captain
    doctor doc dr professor prof mr mrs ms mx miss sir madam officer nurse sister brother mom mum mama papa dad
    daddy mommy mummy pastor reverend""".split()  # noqa: SIM905
)
#: the capital letters a name may begin with (Latin, Greek, Cyrillic: "Émile", "Åsa", "Łukasz")
_UPPER = "".join(re.escape(chr(c)) for c in range(0x41, 0x530) if chr(c).isupper())
_WORD = rf"[{_UPPER}][\w'’-]*"
#: a firm's name goes on past "&" before these ("Crumb & Co", "Marlow & Sons")
_FIRM = r"&\s+(?:Co|Company|Sons|Daughters|Partners|Associates)\b\.?"
_CAPITALISED = re.compile(rf"{_WORD}(?:\s+{_WORD}|\s+{_FIRM})*")
#: what a sentence begins after: its start, an end of sentence, or an opening quotation mark
_SENTENCE_START = re.compile(r"(?:^|[.!?…:;\"“‘(]\s*|(?:^|\s)')$")
#: a title's full stop, which ends no sentence ("Dr. Smith" is one name)
_TITLE = re.compile(rf"\b(Dr|Mr|Mrs|Ms|Mx|Prof|St)\.(?=\s+[{_UPPER}])")


def names_in(text: str, known: set[str]) -> list[str]:
    """The names ``text`` mentions: runs of capitalised words, each once, in order ("'s" left
    off). A single word beginning a sentence is a name only if ``known`` has its normal form
    (a speaker, or a word capitalised inside a sentence elsewhere); common words never are,
    nor a common word beginning a sentence before a name (``_LEADING``) that ``known`` lacks.

    >>> names_in("Paris! Like Paris Hilton? Met Tom Hanks. Visiting New York next June!", set())
    ['Paris Hilton', 'Tom Hanks', 'New York']
    >>> names_in("Caroline went to Paris. Sam Jones came. Like Sam said. Met Gala!", {"caroline", "met"})
    ['Caroline', 'Paris', 'Sam Jones', 'Sam', 'Met Gala']
    """
    found: dict[str, str] = {}
    text = _TITLE.sub(r"\1", text)
    for match in _CAPITALISED.finditer(text):
        words = [w for w in re.split(r"\s+", match.group(0)) if normal_name(w).replace(" ", "") not in _NOT_NAMES]
        starts = bool(_SENTENCE_START.search(text[: match.start()]))
        if not words:
            continue
        lead = normal_name(words[0])
        if starts and len(words) > 1 and match.group(0).split()[0] == words[0] and lead in _LEADING - known:
            words = words[1:]  # (the sentence's first word is no part of the name after it)
        if starts and match.group(0).split()[0] != words[0] and len(words) == 1:
            pass  # (the sentence's first word was dropped: the rest is mid-sentence)
        elif starts and len(words) == 1 and normal_name(words[0]) not in known:
            continue
        name = re.sub(r"['’]s$", "", " ".join(words)).strip("'’-.")
        key = normal_name(name)
        if key and len(key) > 1 and key not in found:
            found[key] = name
    return list(found.values())


#: short forms of first names that begin no letters of the name (one short form, its full names)
DIMINUTIVES = {
    "liz": ("elizabeth",), "beth": ("elizabeth", "bethany"), "betty": ("elizabeth",), "bob": ("robert",),
    "rob": ("robert", "robin"), "bill": ("william",), "will": ("william",), "jim": ("james",),
    "jimmy": ("james",), "mike": ("michael",), "kate": ("katherine", "catherine", "kathryn"),
    "katie": ("katherine", "catherine", "kathryn"), "dave": ("david",), "tom": ("thomas",),
    "dan": ("daniel",), "danny": ("daniel",), "jen": ("jennifer",), "jenny": ("jennifer",),
    "chris": ("christopher", "christine", "christina"), "alex": ("alexander", "alexandra"),
    "nick": ("nicholas",), "joe": ("joseph",), "jon": ("jonathan",), "andy": ("andrew",),
    "tony": ("anthony",), "peggy": ("margaret",), "maggie": ("margaret",), "meg": ("margaret",),
    "sue": ("susan",), "dick": ("richard",), "rick": ("richard",), "ted": ("edward",), "ed": ("edward",),
}  # fmt: skip


def _shortens(key: str, person: str) -> bool:
    """Whether the one-word name ``key`` (not ``person``'s own) may stand for ``person``: it
    begins the name's first word (three letters at least: "mel", "melanie" for "Melanie Smith"),
    or is a known short form of it (``DIMINUTIVES``)."""
    first = person.split(" ", 1)[0]
    return key != person and ((len(key) >= 3 and first.startswith(key)) or first in DIMINUTIVES.get(key, ()))


def short_of(key: str, people: Mapping[str, str]) -> str:
    """The speaker a one-word name is short for — the one speaker whose name it begins, three
    letters at least ("mel" for "melanie"), or whose name it is a known short form of ("liz"
    for "elizabeth") — else the name itself. O(speakers).

    >>> short_of("mel", {"melanie": "Melanie", "caroline": "Caroline"}), short_of("jo", {"joanna": "Joanna"})
    ('melanie', 'jo')
    >>> short_of("jo", {"joanna": "Joanna", "josh": "Josh"}), short_of("melanie", {"melanie": "Melanie"})
    ('jo', 'melanie')
    >>> short_of("liz", {"elizabeth": "Elizabeth"}), short_of("mel", {"melanie": "Melanie", "melissa": "Melissa"})
    ('elizabeth', 'mel')
    >>> short_of("melanie", {"melanie smith": "Melanie Smith"})
    'melanie smith'
    """
    if " " in key or key in people:
        return key
    whose = [person for person in people if _shortens(key, person)]
    return whose[0] if len(whose) == 1 else key


def person_of(name: str, people: Mapping[str, str]) -> str:
    """The speaker a mentioned name stands for (``short_of``; a title or relation before a
    speaker's name, ``TITLES``, is that speaker), else the name.

    >>> people = {"priyanka": "Priyanka", "tobias": "Tobias"}
    >>> person_of("Auntie Pri", people), person_of("Chef Tobias", people), person_of("Dr Okafor", people)
    ('Priyanka', 'Tobias', 'Dr Okafor')
    """
    title, _, rest = name.partition(" ")
    if rest and normal_name(title) in TITLES:
        person = people.get(short_of(normal_name(rest), people))
        if person is not None:
            return person
    return people.get(short_of(normal_name(name), people), name)


def speaker_aliases(speakers: Iterable[str]) -> dict[str, str]:
    """The speakers (normal forms) who are another speaker of the conversation written short
    (``short_of`` the others): "mel" beside "melanie" is Melanie — not beside "melissa" too.

    >>> speaker_aliases(["mel", "melanie", "caroline"]), speaker_aliases(["mel", "melanie", "melissa"])
    ({'mel': 'melanie'}, {})
    """
    keys = sorted(set(speakers))
    aliases = {}
    for key in keys:
        full = short_of(key, {k: k for k in keys if k != key})
        if full != key:
            aliases[key] = full
    return {key: full for key, full in aliases.items() if full not in aliases}


def _short_form(key: str, name: str) -> bool:
    """Whether the one-word name ``key`` is ``name`` written short: it begins the name's first
    word and is shorter (three letters at least: "mel" for "melanie", not "sam" for "sam jones").
    The short forms that begin no letters of a name ("Liz", ``DIMINUTIVES``) are read for
    speakers only: for any name a conversation mentions, a table would need a source to cite."""
    first = name.split(" ", 1)[0]
    return len(key) >= 3 and first.startswith(key) and first != key


def name_aliases(keys: Iterable[str]) -> dict[str, str]:
    """The names a conversation mentions (normal forms) that are another of its names written
    short (``_short_form``) — of exactly one: "mel" beside "melanie" is Melanie, not beside
    "melissa" too. O(names × the names sharing their first letter).

    >>> name_aliases(["mel", "melanie", "jo"]), name_aliases(["mel", "melanie", "melissa"])
    ({'mel': 'melanie'}, {})
    >>> name_aliases(["sam", "sam jones", "liz", "elizabeth", "eli"])
    {'eli': 'elizabeth'}
    """
    names = sorted(set(keys))
    by_letter: dict[str, list[str]] = {}
    for name in names:
        by_letter.setdefault(name[:1], []).append(name)
    found = {}
    for key in names:
        if " " in key:
            continue
        whose = {n for n in by_letter.get(key[:1], ()) if n != key and _short_form(key, n)}
        if len(whose) == 1:
            found[key] = whose.pop()
    return {key: full for key, full in found.items() if full not in found}


def speaker_of(metadata: Mapping[str, Any]) -> str:
    """The key of the speaker a turn's metadata names: the speaker's normal form, or the
    speaker it is short for (``speaker_key``)."""
    key = metadata.get("speaker_key")
    return key if isinstance(key, str) else normal_name(str(metadata.get("speaker", "")))


def written_out(text: str, people: Mapping[str, str], names: Iterable[str] = ()) -> str:
    """``text`` (a question) with each speaker's short name written out, as a turn's would be
    read (``short_of``): a capitalised word inside a sentence — never its first word, nor a
    common word, nor a word in lower case; and a short name of one of the other ``names`` (normal
    forms: those the turns mention, ``name_aliases``) followed by that name, and a name followed
    by those of its short forms among them. O(words × speakers + names).

    >>> people = {"melanie": "Melanie", "willow": "Willow"}
    >>> written_out("What did Mel paint? And is Mel's dog well?", people)
    "What did Melanie paint? And is Melanie's dog well?"
    >>> written_out("Will Melanie paint? What will she melt?", people)
    'Will Melanie paint? What will she melt?'
    >>> written_out("Did Caroline see Mel?", {}, ["melanie", "caroline"]), written_out("Is Melanie in?", {}, ["mel"])
    ('Did Caroline see Mel melanie?', 'Is Melanie mel in?')
    """
    asked = {normal_name(w) for w in re.findall(rf"[{_UPPER}]\w*", text)} - _NOT_NAMES
    aliases = name_aliases([*names, *asked])
    shorts: dict[str, list[str]] = {}
    for short, name in aliases.items():
        shorts.setdefault(name, []).append(short)

    def full(match: re.Match[str]) -> str:
        word = match.group(0)
        key = normal_name(word)
        if key in _NOT_NAMES or _SENTENCE_START.search(text[: match.start()]):
            return word
        speaker = people.get(short_of(key, people))
        if speaker is not None:
            return speaker
        more = [aliases[key]] if key in aliases else shorts.get(key, [])
        return " ".join([word, *sorted(more)])

    return re.sub(rf"(?<![\w'’])[{_UPPER}]\w*", full, text)


def _capitalised_inside(texts: Sequence[str]) -> set[str]:
    """The normal forms of the capitalised words found inside sentences (not first) in ``texts``."""
    inside: set[str] = set()
    for text in texts:
        for match in _CAPITALISED.finditer(text):
            if not _SENTENCE_START.search(text[: match.start()]):
                inside.update(normal_name(w) for w in match.group(0).split())
    return inside - _NOT_NAMES


def _turn(item: Any, where: str) -> dict[str, Any]:
    if not isinstance(item, Mapping):
        raise InvalidInput(f"{where} must be an object, got {kind_of(item)}")
    unknown = [k for k in item if k not in TURN_FIELDS]
    if unknown:
        raise InvalidInput(f"{where}: no field {unknown[0]!r}; a turn takes {', '.join(TURN_FIELDS)}")
    speaker = check_text(item.get("speaker"), f"{where}: speaker", MAX_SPEAKER, empty_ok=False).strip()
    text = check_text(item.get("text"), f"{where}: text", MAX_CONTENT, empty_ok=False).strip()
    if item.get("time") is None:
        raise InvalidInput(f"{where}: time is required (when it was said: an ISO 8601 time or a date)")
    when = moment(item["time"], f"{where}: time")
    given = str(item["time"])
    precision = {4: "year", 7: "month"}.get(len(given)) if re.fullmatch(r"\d{4}(-\d\d)?", given) else None
    offset = given[-6:] if re.search(r"[+-]\d\d:\d\d$", given) and given[-5:] != "00:00" else None
    session = item.get("session")
    if session is None:
        raise InvalidInput(f"{where}: session is required: a name or a whole number")
    if isinstance(session, bool) or not isinstance(session, (str, int)) or not str(session).strip():
        shown = "an empty name" if isinstance(session, str) else f"{kind_of(session)}, {json.dumps(session)[:40]}"
        raise InvalidInput(f"{where}: session must be a name or a whole number, got {shown}")
    caption = item.get("caption")
    if caption is not None:
        caption = check_text(caption, f"{where}: caption", MAX_CONTENT).strip()
    turn_id = None if item.get("id") is None else check_id(item["id"], f"{where}: id")
    return {"speaker": speaker, "text": text, "time": when, "session": session, "caption": caption, "id": turn_id,
            "offset": offset, "precision": precision}  # fmt: skip


def local_time(turn: Mapping[str, Any]) -> str:
    """When a turn was said as its writer gave it (``said_at`` reads it): the UTC time at the
    offset given (the speaker's local day), or the month or year alone.

    >>> local_time({"time": "2023-05-09T06:30:00.000Z", "offset": "-07:00", "precision": None})
    '2023-05-08T23:30:00-07:00'
    >>> local_time({"time": "2023-05-01T00:00:00.000Z", "offset": None, "precision": "month"})
    '2023-05'
    """
    if turn.get("precision") == "year":
        return str(turn["time"])[:4]
    if turn.get("precision") == "month":
        return str(turn["time"])[:7]
    if not turn.get("offset"):
        return str(turn["time"])
    zone = datetime.fromisoformat(f"2000-01-01T00:00:00{turn['offset']}").tzinfo
    return datetime.fromisoformat(turn["time"].replace("Z", "+00:00")).astimezone(zone).isoformat()


def turn_id_for(namespace: str | None, session: str | int, place: int, turn: Mapping[str, Any]) -> str:
    """The id a turn gets when none is given: from where it sits and what was said."""
    parts = (namespace or "", str(session), str(place), turn["time"], turn["speaker"], turn["text"])
    return f"turn-{hashlib.sha256(chr(31).join(parts).encode('utf-8')).hexdigest()[:ID_HEX]}"


@dataclass
class Derived:
    """What a call's turns make: the nodes and edges to write (store_many items), the errors of
    the wrong turns (``turns[i]: …``), the ids of the call's turns in its order, and the
    mentions the conversation no longer holds (turn id, entity key) — a name an earlier turn
    read otherwise before the call's turns were known."""

    nodes: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    turns: list[str] = field(default_factory=list)
    stale: list[tuple[str, str]] = field(default_factory=list)
    turn_ids: set[str] = field(default_factory=set)
    #: the entity keys no turn of the conversation names any more
    orphans: list[str] = field(default_factory=list)
    #: the temporal links between stored turns that are neighbours no more (a turn said between them)
    unlinked: list[tuple[str, str]] = field(default_factory=list)
    #: the call's speakers written short, each with the speaker it is (``speaker_aliases``)
    aliases: dict[str, str] = field(default_factory=dict)


def stored_turns(nodes: Iterable[MemoryNode]) -> list[dict[str, Any]]:
    """The turns stored ``nodes`` hold, read back as a call gives them (with their ids), in
    the order they were said: by time, then session and place. Other nodes are left out."""
    found: list[tuple[str, str, int, dict[str, Any]]] = []
    for node in nodes:
        speaker, session, place = (node.metadata.get(k) for k in ("speaker", "session", "turn"))
        if (not isinstance(speaker, str) or not isinstance(place, int) or isinstance(session, bool)
                or not isinstance(session, (str, int)) or node.valid_from is None
                or not node.content.startswith(f"{speaker}: ")):  # fmt: skip
            continue
        text, caption = node.content[len(speaker) + 2 :], None
        cut = text.rfind(_PHOTO)
        if cut > 0 and text.endswith("]"):
            text, caption = text[:cut], text[cut + len(_PHOTO) : -1]
        offset, precision, alias = (node.metadata.get(k) for k in ("offset", "precision", "speaker_key"))
        turn = {"speaker": speaker, "text": text, "time": node.valid_from, "session": session, "caption": caption,
                "id": node.id, "offset": offset if isinstance(offset, str) and re.fullmatch(r"[+-]\d\d:\d\d", offset)
                else None, "precision": precision if precision in ("month", "year") else None,
                "speaker_key": alias if isinstance(alias, str) else None}  # fmt: skip
        found.append((node.valid_from, str(session), place, turn))
    return [turn for *_, turn in sorted(found, key=lambda t: t[:3])]


def _same_turn(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    def said(turn: Mapping[str, Any]) -> tuple[Any, ...]:
        text, caption = turn["text"].strip(), (turn["caption"] or "").strip() or None
        return turn["speaker"].strip(), text, turn["time"], caption, str(turn["session"])

    return said(a) == said(b)


def _joined(earlier: list[dict[str, Any]], read: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The conversation: the ``earlier`` turns, each replaced by the call's turn with its id (or,
    without one, said the same), then the call's other turns; and the call's turns' ids (None
    for a new turn without an id: filled in when its place is known)."""
    turns = list(earlier)
    at = {t["id"]: i for i, t in enumerate(earlier)}
    taken: set[int] = set()
    asked: list[str] = []
    for turn in read:
        place = at.get(turn["id"]) if turn["id"] is not None else None
        if turn["id"] is None:
            place = next((i for i, t in enumerate(earlier) if i not in taken and _same_turn(t, turn)), None)
        if place is None:
            turns.append(turn)
            asked.append(turn["id"] or "")
            continue
        taken.add(place)
        was = earlier[place]["session"]  # (the same session given 2 or "2" keeps the one stored)
        turns[place] = {
            **turn,
            "id": earlier[place]["id"],
            "session": was if str(was) == str(turn["session"]) else turn["session"],
        }
        asked.append(earlier[place]["id"])
    return turns, asked


def conversation_items(turns: Sequence[Any], namespace: str | None, earlier: Sequence[MemoryNode] = ()) -> Derived:
    """The nodes and edges (store_many items) a call's turns make, as one call with the
    conversation's ``earlier`` turns (stored nodes) would: a session goes on where it stopped,
    and a name the call makes known (a new speaker, a word capitalised inside a sentence) is
    read so in the earlier turns too. Only what changes is returned: the call's turns, the
    earlier ones read anew, their edges and entities. O(the conversation's text)."""
    derived = Derived()
    read: list[dict[str, Any]] = []
    first: dict[str, int] = {}
    for i, item in enumerate(turns):
        try:
            turn = _turn(item, f"turns[{i}]")
        except InvalidInput as exc:
            derived.errors.append(str(exc))
            continue
        if turn["id"] is not None and first.setdefault(turn["id"], i) != i:
            derived.errors.append(f"turns[{i}]: the id {turn['id']!r} is given to turns[{first[turn['id']]}] too")
        read.append(turn)
    if derived.errors:
        return derived
    before = {n.id: n for n in earlier}
    stored = stored_turns(earlier)
    conversation, asked = _joined(stored, read)
    for slot, turn in enumerate(conversation[len(stored) :]):
        turn["slot"] = slot  # (a new turn's place in the call's answer, once the turns are in time order)
    conversation.sort(key=lambda turn: turn["time"])  # (stable: turns said at once stay in the order given)
    sessions: dict[str, str | int] = {}  # (a session keeps the name or number it was first given: 2, not "2")
    for turn in conversation:  # (in place: a stored turn stays the dict it was)
        turn["session"] = sessions.setdefault(str(turn["session"]), turn["session"])
    known = _capitalised_inside([t["text"] for t in conversation]) | {normal_name(t["speaker"]) for t in conversation}
    speakers = {normal_name(t["speaker"]): t["speaker"] for t in conversation}
    aliases = speaker_aliases(speakers)  # (a speaker written short: "Mel" beside "Melanie")
    people = {key: name for key, name in speakers.items() if key not in aliases}
    same = _unchanged(stored, conversation, known, speakers, aliases)
    raw, mentioned_as = _mentions(conversation, same, before, known)
    short = name_aliases(set(mentioned_as) - set(people))  # (a name written short: "Mel" beside "Melanie")
    mentioned: set[str] = set()  # (the entities of the earlier turns not read again)
    entities: dict[str, str] = {}  # normal name → the name as first written
    places: dict[str, int] = {}
    previous: dict[str, str] = {}  # session → the id of its last turn so far
    wanted: set[str] = set()
    new = [i for i, turn_id in enumerate(asked) if turn_id not in before]  # (the call's new turns)
    chain: set[tuple[str, str]] = set()
    for turn in conversation:
        session = str(turn["session"])
        place = places[session] = places.get(session, 0) + 1
        turn_id = turn["id"] or turn_id_for(namespace, turn["session"], place, turn)
        if turn["id"] is None:
            asked[new[turn["slot"]]] = turn_id
        if session in previous:
            chain.add((previous[session], turn_id))
        speaker = aliases.get(normal_name(turn["speaker"]), normal_name(turn["speaker"]))
        if turn_id in same and before[turn_id].metadata.get("turn") == place:  # (the call changes nothing of it)
            was = before[turn_id].metadata.get("names")
            mentioned.update([speaker, *(was if isinstance(was, list) else [])])
            if previous.get(session) in derived.turn_ids:  # (a turn moved before it: its new neighbour)
                derived.edges.append({"source_id": previous[session], "target_id": turn_id, "edge_type": "temporal"})
            previous[session] = turn_id
            continue
        content = f"{turn['speaker']}: {turn['text']}"
        if turn["caption"]:
            content += f"{_PHOTO}{turn['caption']}]"
        said_names = raw.get(id(turn)) or names_in(f"{turn['text']} {turn['caption'] or ''}", known)
        named = list(dict.fromkeys(_written_as(n, people, short, mentioned_as) for n in said_names))
        metadata: dict[str, Any] = {"speaker": turn["speaker"], "session": turn["session"], "turn": place,
                                    "said": said_in_words(local_time(turn))}  # fmt: skip
        metadata.update({k: turn[k] for k in ("offset", "precision") if turn.get(k)})
        if speaker != normal_name(turn["speaker"]):
            metadata["speaker_key"] = speaker
        dates = dates_in(turn["text"], local_time(turn))
        if dates:
            metadata["dates"] = dates
        keys = [normal_name(n) for n in named]
        if keys:
            metadata["names"] = keys
        node = {"id": turn_id, "content": content, "node_type": "episodic", "valid_from": turn["time"],
                "metadata": metadata}  # fmt: skip
        old = before.get(turn_id)
        change = old is None or turn_id in asked or _differs(old, node)
        if change:
            derived.nodes.append(node)
            wanted.update([speaker, *keys])
            if speaker != normal_name(turn["speaker"]):
                derived.aliases[turn["speaker"]] = people[speaker]
        if old is not None and change:
            was = old.metadata.get("names")
            gone = [k for k in was if isinstance(k, str) and k not in keys] if isinstance(was, list) else []
            derived.stale.extend((turn_id, k) for k in gone)
        if session in previous and (change or previous[session] in derived.turn_ids):
            derived.edges.append({"source_id": previous[session], "target_id": turn_id, "edge_type": "temporal"})
        previous[session] = turn_id
        entities.setdefault(speaker, people[speaker])
        for name in named:
            entities.setdefault(normal_name(name), name)
        if change:
            derived.turn_ids.add(turn_id)
            for key in dict.fromkeys(keys):
                derived.edges.append({"source_id": turn_id, "target_key": key, "edge_type": "related"})
    derived.turns = asked
    last: dict[str, str] = {}
    for turn in stored:  # (the chain stored: a session's turns in time order)
        if str(turn["session"]) in last:
            derived.unlinked.append((last[str(turn["session"])], turn["id"]))
        last[str(turn["session"])] = turn["id"]
    derived.unlinked = [pair for pair in derived.unlinked if pair not in chain]
    was_speaking = {speaker_of(n.metadata) for n in earlier if "speaker" in n.metadata}
    derived.orphans = sorted(({key for _, key in derived.stale} | was_speaking) - set(entities) - mentioned)
    entity_nodes = [{"key": name} for key, name in entities.items() if key in wanted]  # (a stored one stays)
    derived.nodes[:0] = entity_nodes
    return derived


def _mentions(
    conversation: list[dict[str, Any]], same: set[str], before: Mapping[str, MemoryNode], known: set[str]
) -> tuple[dict[int, list[str]], dict[str, str]]:
    """The names the turns to be read mention (by the turn's ``id()``), and every name the
    conversation mentions (normal form → as written; a stored turn's not read again, as
    stored)."""
    raw: dict[int, list[str]] = {}
    written: dict[str, str] = {}
    for turn in conversation:
        kept = before[turn["id"]].metadata.get("names") if turn["id"] in same else None
        if isinstance(kept, list):
            for key in kept:
                if isinstance(key, str):
                    written.setdefault(key, _as_said(key, turn["text"]))
            continue
        raw[id(turn)] = names_in(f"{turn['text']} {turn['caption'] or ''}", known)
        for name in raw[id(turn)]:
            written[normal_name(name)] = name
    return raw, written


def _as_said(key: str, text: str) -> str:
    """A name (normal form) as ``text`` writes it, or capitalised when it cannot be found."""
    found = re.search(r"(?<!\w)" + r"\W+".join(map(re.escape, key.split())) + r"(?!\w)", fold(text))
    return text[found.start() : found.end()] if found and len(fold(text)) == len(text) else key.title()


def _written_as(name: str, people: Mapping[str, str], short: Mapping[str, str], written: Mapping[str, str]) -> str:
    """The name a turn's ``name`` stands for: the speaker it is short for or names with a title
    (``person_of``), else the other name it is short for (``name_aliases``), else itself."""
    key = normal_name(name)
    if key in short and people.get(short_of(key, people)) is None:
        return written[short[key]]
    return person_of(name, people)


def _unchanged(
    stored: list[dict[str, Any]],
    conversation: list[dict[str, Any]],
    known: set[str],
    people: Mapping[str, str],
    aliases: Mapping[str, str],
) -> set[str]:
    """The ids of the earlier turns whose reading the call's turns cannot change: none when the
    call brings a new speaker (a short name may now be theirs) or a stored turn's speaker reads
    otherwise (stored before speakers written short were read so); else those that hold no word
    the call made known (capitalised inside a sentence), nor a word read otherwise since they
    were stored (``_REREAD``: read anew, written only if their reading changed). The call's own
    turns are not among them."""
    if set(people) != {normal_name(t["speaker"]) for t in stored}:
        return set()
    if any(t["speaker_key"] != aliases.get(normal_name(t["speaker"])) for t in stored):
        return set()
    fresh = known - _capitalised_inside([t["text"] for t in stored]) - set(people)
    kept = {id(t) for t in conversation}  # (an earlier turn the call gives again is the call's)

    def holds_fresh(turn: Mapping[str, Any]) -> bool:
        said = f" {normal_name(turn['text'] + ' ' + (turn['caption'] or ''))} "
        if any(f" {word} " in said for word in fresh):
            return True
        words = set(said.split())  # (a short form of a fresh name: "Mel", said before "Melanie" was)
        return any(_short_form(w, f) for f in fresh for w in words if w[:1] == f[:1])

    return {
        t["id"] for t in stored if id(t) in kept and not (fresh and holds_fresh(t)) and not _REREAD.search(t["text"])
    }


def _differs(old: MemoryNode, node: Mapping[str, Any]) -> bool:
    """Whether a stored turn reads otherwise than the node a call derives for it."""
    kept = {k: v for k, v in old.metadata.items() if k != "namespace"}
    return (old.content, old.node_type, old.valid_from, kept) != (
        node["content"], node["node_type"], node["valid_from"], node["metadata"]
    )  # fmt: skip
