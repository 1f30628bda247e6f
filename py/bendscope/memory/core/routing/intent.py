"""What a question asks for: how something behaves over time (``dynamics``), a fact
(``lookup``), or neither said (``open``) — read from its words, deterministically, no model.

The router (``router.question_route``) combines this with where the question's best matches
sit in the memory: a question about a loop's dynamics is deliberated, a lookup is answered in
one pass even when its answer is linked to a loop. The words are the ones people use for each:

* **dynamics**: the loop itself (*feedback*, *loop*, *cycle*, *vicious*, *spiral*,
  *self-reinforcing*, *snowball*, *compounding*), persistence (*keep*, *still*, *so long*,
  *drag on*, *again*, *come back*, *every summer*, *through the 1980s*, *more and more*, *get
  worse*, *even faster*), self-correction (*by itself*, *on its own*, *settle*,
  *recover*, *in check*, *burn itself out*), mutual influence (*each other*, *feed*), and
  how one thing acts on another (*what happens*, *how does X affect / lead to / drive*,
  *why does X*, *if we …*);
* **lookup**: a question about a fact's value (*who*, *when*, *where*, *which*, *how many*,
  *how much*, *what is*, *what was*, *define*, a number but not a year), or a past event's
  cause (*why did*, *what caused*: weaker than any sign that it went on).

The tense decides nothing by itself: a question about the past asks the same kind of thing
as the same question in the present (a year only dates it).

Each sign scores; dynamics wins when its score is larger, lookup when its is; equal scores
(most often: no sign at all) are ``open``. O(length of the question).

>>> intent("Why does the algae bloom keep coming back?")
'dynamics'
>>> intent("When was the Paris Agreement adopted?")
'lookup'
>>> intent("methane's warming potential")
'open'
>>> intent("What happens to churn as we grow?")
'dynamics'
>>> intent("How much did Arctic sea ice decline between 1979 and 2023?")
'lookup'
>>> intent("Why was the agency founded?")
'lookup'
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["Asked", "Intent", "asked_relation", "evidence", "intent", "signs"]

Intent = Literal["dynamics", "lookup", "open"]
Asked = Literal["cause", "effect"]

_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")

#: phrases that say the question is about how something behaves around a loop (weight 2)
_LOOPING = (
    r"\bfeed(?:s|ing)? ?backs?\b",
    r"\bfeed(?:s|ing)? (?:each other|one another|itself|themselves|back|on|into)\b",
    r"\bloops?\b",
    r"\bcycles?\b",
    r"\bcyclical\b",
    r"\bvicious\b",
    r"\bvirtuous\b",
    r"\bspiral",
    r"\bsnowball",
    r"\brunaway\b",
    r"\bcompound(?:s|ing)?\b",
    r"\bself[- ](?!reinforc)",  # ("self-reinforcing": one sign, below)
    r"\bitself\b",
    r"\bthemselves\b",
    r"\bon (?:its|their) own\b",
    r"\beach other\b",
    r"\bone another\b",
    r"\bkeep(?:s|ing)?\b",
    r"\bkept (?:on|going|growing|rising|falling)\b",
    r"\bstill\b",
    r"\bso long\b",
    r"\bdrag(?:s|ged|ging)? on\b",
    r"\bprolong",
    r"\bstay(?:s|ed|ing)? (?:high|low|up|down|stuck|elevated|depressed)\b",
    r"\bthrough(?:out)? (?:the )?(?:\d{4}s?|years|decades?|months|seasons)\b",
    r"\b(\w+er) and \1\b",
    r"\bcontinu(?:e|es|ing) to\b",
    r"\bagain\b",
    r"\bcom(?:e|es|ing) back\b",
    r"\breturn(?:s|ing)? (?:every|each|year|again)\b",
    r"\bevery (?:summer|winter|year|time|cycle|season)\b",
    r"\brecurr",
    r"\bpersist",
    r"\bmore and more\b",
    r"\bworse and worse\b",
    r"\bin check\b",
    r"\bsettle",
    r"\bequilibri",
    r"\boscillat",
    r"\bstabili[sz]",
    r"\bturn(?:s)? over\b",
    r"\b(?:get|gets|got|getting|grow|grows|grew|growing|become|became) (?:\w+ )?(?:worse|faster|bigger|larger|"
    r"stronger|weaker|deeper|longer)\b",
    r"\bexponential",
    r"\b(?:make|makes|made|making) .*\bworse\b",
    r"\beven (?:faster|more|worse|higher|lower|longer|further|bigger|larger)\b",
    r"\bup and down\b",
    r"\bswing",
    r"\binstead of (?:level|settl|recover|stabili|improv)\w*",
    r"\bpil(?:e|es|ing) up\b",
    r"\bbuild(?:s)? up\b",
    r"\bburn(?:s)? (?:itself )?out\b",
    r"\bamplif",
    r"\breinforc",
    r"\bbalanc",
    r"\baccelerat",
    r"\bescalat",
    r"\btipping\b",
    r"\bsustain",
    r"\bdynamics?\b",
    r"\bover time\b",
    r"\bin the long run\b",
    r"\bin turn\b",
    r"\bwhat (?:would |will |then )?happens?\b",
    r"\bstuck\b",
    r"^what(?:'s| is| are| was| were) (?:driving|fuell?ing|feeding|pushing|behind)\b",
    r"\bover (?:the )?(?:years|months|decades|seasons|weeks)\b",
    r"\bif nothing\b",
    r"\bwhen will\b.*\b(?:stop|end|peak|level off|plateau|settle|turn around|slow)",
    r"\b(?:come|comes|coming|go|goes|going) (?:back )?around\b",
)
#: how one thing acts on another, asked in the present (weight 1)
_ACTING = (
    r"\bhow (?:does|do|did|would|will|can|could) .*\b(?:affect|lead|feed|drive|change|influence|interact|"
    r"turn|make|cause|reduce|increase|hurt|help|slow|speed|raise|lower|push|pull|spread|grow|shrink|respond|"
    r"react|build)\w*",
    r"\bwhy (?:does|do|is|are|don't|doesn't|isn't|aren't|can't|won't|would|will|didn't|wasn't|weren't|"
    r"couldn't|hadn't)\b",
    r"\bwhy\b.*\b(?:always|never)\b",
    r"\bwill\b.*\b(?:slow|stop|recover|end|continue|last|grow|shrink|fall|rise|decline)\w*",
    r"\bwould\b.*\b(?:recover|stop|slow|break|happen|change)\w*",
    r"\bif (?:we|they|the|it|you|i|people|nothing)\b",
    r"\bwhat (?:drives|keeps|makes|stops|slows|breaks)\b",
    r"\b(?:affect|influence|shape)s? (?:each|one)\b",
    r"\bgrowth engine\b",
    r"\bend(?:s)? up\b",
    r"\brecover",
    r"\bbreak (?:the|this|that)\b",
    r"\bslow(?:s)? (?:\w+ )?down\b",
    r"^(?:does|do|can|could|will|would|might) .*\b(?:slow|stop|limit|curb|dampen|offset|counteract|reduce|speed|"
    r"feed|drive|raise|increase|worsen|fuel|turn into)\w*",
    r"\b(?:driving|fuell?ing)\b",
)
#: a question for a fact's value (weight 2 at the start, 1 elsewhere)
_ASKING_START = (
    r"^(?:who|whom|whose|when|where|which)\b",
    r"^(?:who|whom|whose)\b",  # (a person is asked for: a loop's behaviour never is one)
    r"^what(?:'s| is| are| was| were| kinds? of| sorts? of| types? of)\b",
    r"^what (?:does|do|did) (?:\w+ ){1,5}(?:stand for|mean|publish|measure|cost|contain|include|say|teach|show|"
    r"describe|conclude|find|recommend|predict)\b",
    r"\bdifference between\b",
    r"^what(?:'s| is| was) the (?:name|date|year|number|value|size|amount|share|rate|cost|price)\b",
    r"^how (?:many|much|long|old|big|large|deep|far|often|high|tall|wide|fast|effective|expensive|low|small|"
    r"short|soon|quickly|cold|hot|warm|heavy|strong|common|likely|frequent)\b",
    r"^(?:define|name|list|give)\b",
    r"^(?:is|are|was|were) there\b",
    r"^how (?!does|do|did|would|will|can|could|is|are|was|were|come|about)\w+ (?:is|are|was|were)\b",
)
_ASKING = (
    r"^why (?:was|were|did|had)\b",  # (a past event's cause, unless it is said to go on: keep, still, worse…)
    r"^what (?:caused|causes|cause|triggered|triggers|led to|leads to|prompted|sparked|started)\b",
    r"^when (?:did|was|were|is|are|does|do)\b",
    r"\b(?:described|coined|discovered|invented|wrote|written|introduced|popularised|popularized|signed|"
    r"announced)\b",
    r"\b(?:definition|defined|stand for|stands for|meaning of|called|named|located|founded|established|"
    r"adopted|published|approved|elected|appointed|born|headquarter\w*)\b",
    r"\b(?:date|year|percent|percentage|number of|version|port|address|price|cost of)\b",
    r"\b(?!1\d{3}s?\b|20\d{2}s?\b)\d+(?:[.,]\d+)?\b",  # (not a year: it dates a question, of either kind)
    r"\b(?:between|from) (?:\w+ )?\d{4}s? (?:and|to)\b",  # (values at two dates)
    r"^(?:does|do|did|is|are|was|were|has|have|can) (?:the|a|an|our|my|this|that|its|their)\b.*"
    r"\b(?:cover|include|contain|own|use|offer|require|allow|mention|apply|belong)\w*",
)
_COMPILED = (
    [(re.compile(p), 2, "dynamics") for p in _LOOPING]
    + [(re.compile(p), 1, "dynamics") for p in _ACTING]
    + [(re.compile(p), 2, "lookup") for p in _ASKING_START]
    + [(re.compile(p), 1, "lookup") for p in _ASKING]
)


def _normal(question: str) -> str:
    """Lower case, one space between words, apostrophes kept inside words."""
    return " ".join(_WORD.findall(question.lower().replace("’", "'")))


def signs(question: str) -> dict[str, int]:
    """The score of each kind of sign in ``question``.

    >>> signs("Is permafrost thaw self-reinforcing?")
    {'dynamics': 2, 'lookup': 0}
    """
    text = _normal(question)
    scores = {"dynamics": 0, "lookup": 0}
    for pattern, weight, kind in _COMPILED:
        if pattern.search(text):
            scores[kind] += weight
    return scores


def evidence(question: str) -> dict[str, list[str]]:
    """The words of ``question`` that were taken as each kind of sign, in pattern order.

    >>> evidence("Why does the algae bloom keep coming back?")["dynamics"]
    ['keep', 'coming back', 'why does']
    """
    text = _normal(question)
    found: dict[str, list[str]] = {"dynamics": [], "lookup": []}
    for pattern, _, kind in _COMPILED:
        match = pattern.search(text)
        if match:
            end = match.end()
            while end < len(text) and text[end].isalnum():  # (the whole word a stem matched)
                end += 1
            found[kind].append(text[match.start() : end].strip())
    return found


def intent(question: str) -> Intent:
    """``dynamics``, ``lookup`` or ``open`` (see the module's docstring)."""
    scores = signs(question)
    if scores["dynamics"] > scores["lookup"]:
        return "dynamics"
    if scores["lookup"] > scores["dynamics"]:
        return "lookup"
    return "open"


#: a question for what brought a fact about (its causes in the memory)
_CAUSE = re.compile(
    r"^(?:why (?:did|was|were|had|has|have|is|are|does|do)\b|what (?:caused|causes|led to|leads to|made|makes|"
    r"drove|drives|triggered|prompted|brought about|was behind|is behind)\b|how come\b"
    r"|(?:which|what) (?:\w+ ){1,3}(?:caused|triggered|led to|drove|started|prompted|sparked|set off)\b)"
)
#: a question for what a fact brought about (its effects in the memory)
_EFFECT = re.compile(
    r"^what (?:did|does|do|will|would) .+\b(?:lead to|cause|result in|bring about|trigger)\b"
    r"|^what (?:was|were|is|are) the (?:effects?|results?|consequences?|outcomes?|impacts?) of\b"
    r"|^what happened (?:after|because of|as a result of)\b"
)


def asked_relation(question: str) -> Asked | None:
    """``cause`` when a question asks what brought a fact about ("why did …", "what caused
    …"), ``effect`` when it asks what a fact brought about ("what did … lead to"), else None:
    a lookup that asks for a cause is answered by the fact it names and that fact's causes in
    the memory (its causal predecessors), an effect by its causal successors. O(length).

    >>> asked_relation("What caused Sam's take-home pay to fall?"), asked_relation("Why did the ER bill hurt?")
    ('cause', 'cause')
    >>> asked_relation("What did the outage lead to?"), asked_relation("Where is the company based?")
    ('effect', None)
    """
    text = _normal(question)
    if _CAUSE.search(text):
        return "cause"
    if _EFFECT.search(text):
        return "effect"
    return None
