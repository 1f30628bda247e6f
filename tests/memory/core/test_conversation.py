"""Conversations, entities named by key and namespaces, through the MCP tools on every store:
a conversation's turns keep their ids and gain their session's neighbours, the names they
mention and their dates; keys name the same node across calls and spellings; duplicates are
merged with a ``merged_into`` answer; a namespace sees its own nodes alone, and no other sees
them."""

from __future__ import annotations

import datetime
import json
import string

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from mcp import Client

from bendscope.memory import InvalidInput
from bendscope.memory.core.conversations.turns import MONTHS, WEEKDAYS, dates_in, names_in
from bendscope.memory.core.names import key_id, normal_name
from bendscope.memory.mcp.tools import call
from tests.memory.core.test_service import memory_on
from tests.memory.mcp.test_mcp import ok, over_stdio

SAID = "2023-05-08T13:56:00Z"  # a Monday
LATER = "2023-05-25T13:14:00Z"
TURNS = [
    {"id": "D1:1", "speaker": "Caroline", "text": "I went to a LGBTQ support group yesterday.", "time": SAID,
     "session": 1},
    {"id": "D1:2", "speaker": "Melanie", "text": "Wow Caroline! I painted a lake sunrise last year.", "time": SAID,
     "session": 1, "caption": "a painting of a sunrise over a lake"},
    {"id": "D1:3", "speaker": "Caroline", "text": "Lovely! Did you show it to Sam?", "time": SAID, "session": 1},
    {"id": "D2:1", "speaker": "Caroline", "text": "Last Saturday I met Sam at the Pride parade.", "time": LATER,
     "session": 2},
    {"id": "D2:2", "speaker": "Melanie", "text": "How was the parade?", "time": LATER, "session": 2},
]  # fmt: skip


def test_a_conversation_keeps_its_turns_sessions_names_and_dates(store):
    memory = memory_on(store)
    answer = call(memory, "store_many", {"turns": TURNS})
    assert [t["id"] for t in answer["turns"]] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"]
    assert set(answer["entities"]) == {"Caroline", "Melanie", "LGBTQ", "Sam", "Pride"}
    nodes = {n["id"]: n for n in call(memory, "query_graph", {"limit": 100})["nodes"]}
    first = nodes["D1:2"]
    assert first["content"] == (
        "Melanie: Wow Caroline! I painted a lake sunrise last year. "
        "[shares a photo: a painting of a sunrise over a lake]"
    )
    assert first["node_type"] == "episodic" and first["valid_from"] == "2023-05-08T13:56:00.000Z"
    assert first["metadata"] == {"speaker": "Melanie", "session": 1, "turn": 2, "said": "8 May 2023",
                                 "dates": {"last year": "2022"}, "names": ["caroline"]}  # fmt: skip
    assert nodes["D1:1"]["metadata"]["dates"] == {"yesterday": "7 May 2023"}
    assert nodes["D2:1"]["metadata"]["dates"] == {"last saturday": "20 May 2023"}
    # neighbours: consecutive turns of a session, and none across sessions
    edges = call(memory, "list_edges", {"edge_type": "temporal", "limit": 100})["edges"]
    assert sorted((e["source_id"], e["target_id"]) for e in edges) == [
        ("D1:1", "D1:2"), ("D1:2", "D1:3"), ("D2:1", "D2:2")
    ]  # fmt: skip
    # an entity node per name, linked to the turns that mention it
    sam = answer["entities"]["Sam"]
    assert sam == key_id(None, "sam") and nodes[sam]["content"] == "Sam"
    mentions = call(memory, "list_edges", {"node_ids": [sam], "limit": 100})["edges"]
    assert sorted(e["source_id"] for e in mentions) == ["D1:3", "D2:1"]
    assert {e["edge_type"] for e in mentions} == {"related"}
    # a question finds the turn by its own id, its neighbour beside it
    found = call(memory, "retrieve_context", {"query": "When did Caroline go to the LGBTQ support group?"})
    assert found["results"][0]["id"] == "D1:1"
    # the same conversation again changes nothing
    again = call(memory, "store_many", {"turns": TURNS})
    assert {t["status"] for t in again["turns"]} == {"unchanged"}
    assert store.counts() == (len(nodes), len(call(memory, "list_edges", {"limit": 1000})["edges"]))


def test_a_wrong_turn_stores_nothing_and_is_named(store):
    memory = memory_on(store)
    bad = [*TURNS[:2], {"speaker": "Melanie", "text": "no time", "session": 1}, {"text": "?", "time": SAID}]
    with pytest.raises(InvalidInput) as caught:
        call(memory, "store_many", {"turns": bad, "nodes": [{"id": "n", "content": "a fact"}]})
    assert "turns[2]: time is required" in str(caught.value) and "turns[3]: speaker" in str(caught.value)
    assert store.counts() == (0, 0)


def test_turns_without_ids_get_ids_of_their_place():
    memory = memory_on(__import__("bendscope.memory.store.inmemory", fromlist=["x"]).InMemoryStore())
    turns = [{k: v for k, v in t.items() if k != "id"} for t in TURNS]
    first = [t["id"] for t in call(memory, "store_many", {"turns": turns})["turns"]]
    assert len(set(first)) == 5 and all(i.startswith("turn-") for i in first)
    assert [t["id"] for t in call(memory, "store_many", {"turns": turns})["turns"]] == first


def test_keys_name_nodes_across_calls_and_spellings(store):
    memory = memory_on(store)
    made = call(memory, "store_many", {
        "nodes": [{"key": "Caroline", "content": "Caroline, a counsellor"}, {"key": "ACME Corp."}],
        "edges": [{"source_key": "caroline", "target_key": "acme corp", "edge_type": "related"}],
    })  # fmt: skip
    caroline, acme = (n["id"] for n in made["nodes"])
    assert [n["status"] for n in made["nodes"]] == ["created", "created"] and "merged_into" not in made["nodes"][0]
    assert made["edges"][0]["status"] == "created"
    # another call, another spelling: the same node, said to be merged into it
    again = call(memory, "store_node", {"key": " CAROLINE's", "content": "Caroline, a counsellor"})
    assert again == {"status": "unchanged", "id": caroline, "merged_into": caroline}
    updated = call(memory, "store_node", {"key": "caroline", "content": "Caroline, a school counsellor"})
    assert updated["status"] == "updated" and updated["merged_into"] == caroline
    node = call(memory, "query_graph", {"node_ids": [caroline]})["nodes"][0]
    assert node["content"] == "Caroline, a school counsellor" and node["metadata"] == {"key": "Caroline"}
    linked = call(memory, "store_edge", {"source_key": "Acme corp", "target_key": "Caroline", "edge_type": "related"})
    assert linked["status"] == "created"
    assert store.counts() == (2, 2)
    # keys that name nothing, and a key beside an id, are refused, storing nothing
    with pytest.raises(InvalidInput, match="no node with key 'Bob'"):
        call(memory, "store_edge", {"source_key": "Bob", "target_id": acme, "edge_type": "related"})
    with pytest.raises(InvalidInput, match="an id or a key, not both"):
        call(memory, "store_node", {"id": "x", "key": "x", "content": "x"})
    with pytest.raises(InvalidInput, match="nothing was stored"):
        call(memory, "store_many", {"nodes": [{"key": "Dana"}], "edges": [{"source_key": "Dana", "target_key": "Eve",
                                                                           "edge_type": "related"}]})  # fmt: skip
    assert store.counts() == (2, 2)


def test_duplicates_read_the_same_are_merged_at_write(store):
    memory = memory_on(store)
    first = call(memory, "store_node", {"content": "Caroline moved from Sweden."})
    assert "merged_into" not in first
    for same in ("Caroline moved from Sweden.", "caroline moved from sweden", "  CAROLINE  moved from Sweden!"):
        answer = call(memory, "store_node", {"content": same})
        assert answer["id"] == first["id"] and answer["merged_into"] == first["id"], same
    many = call(memory, "store_many", {"nodes": [{"content": "CAROLINE MOVED FROM SWEDEN"}, {"content": "Other"}]})
    assert many["nodes"][0] == {"status": "unchanged", "id": first["id"], "merged_into": first["id"]}
    # a different type, or different words, is a different node
    other = call(memory, "store_node", {"content": "caroline moved from sweden", "node_type": "episodic"})
    assert other["id"] != first["id"] and "merged_into" not in other
    assert call(memory, "store_node", {"content": "Caroline moved to Sweden."})["id"] != first["id"]
    assert store.counts()[0] == 4


def test_namespaces_keep_memories_apart(store):
    memory = memory_on(store)
    call(memory, "store_many", {"namespace": "alice", "turns": TURNS[:3]})
    call(memory, "store_node", {"namespace": "bob", "content": "Bob went to a chess club yesterday.", "id": "b1"})
    call(memory, "store_node", {"namespace": "bob", "key": "Caroline", "content": "Caroline, Bob's cousin"})
    alice = call(memory, "retrieve_context", {"query": "Caroline support group chess", "namespace": "alice"})
    bob = call(memory, "retrieve_context", {"query": "Caroline support group chess", "namespace": "bob"})
    alice_ids = {r["id"] for r in alice["results"]}
    alice_all = {n["id"] for n in call(memory, "query_graph", {"namespace": "alice", "limit": 100})["nodes"]}
    bob_ids = {r["id"] for r in bob["results"]}
    assert "D1:1" in alice_ids and "b1" not in alice_ids
    assert bob_ids == {"b1", key_id("bob", "Caroline")}
    assert key_id("alice", "Caroline") in {
        n["id"] for n in call(memory, "query_graph", {"namespace": "alice"})["nodes"]
    }
    # every reading is scoped: pages, text search, topology
    assert {n["id"] for n in call(memory, "query_graph", {"namespace": "bob", "limit": 100})["nodes"]} == bob_ids
    assert call(memory, "query_graph", {"namespace": "bob", "text": "support group"})["nodes"] == []
    with pytest.raises(InvalidInput, match="no node with id 'D1:1'"):
        call(memory, "query_graph", {"namespace": "bob", "node_ids": ["D1:1"]})
    topology = call(memory, "analyze_topology", {"namespace": "bob"})
    assert topology["dag_nodes"] == sorted(bob_ids) or set(topology["dag_nodes"]) == bob_ids
    # edges too: a namespace lists its own, all of them or those touching its nodes
    link = {"namespace": "bob", "source_id": "b1", "target_key": "Caroline", "edge_type": "related"}
    call(memory, "store_edge", link)
    alice_edges = call(memory, "list_edges", {"namespace": "alice", "limit": 1000})["edges"]
    bob_edges = call(memory, "list_edges", {"namespace": "bob"})["edges"]
    assert alice_edges and all({e["source_id"], e["target_id"]} <= alice_all for e in alice_edges)
    assert [(e["source_id"], e["target_id"]) for e in bob_edges] == [("b1", key_id("bob", "Caroline"))]
    assert call(memory, "list_edges", {"namespace": "bob", "node_ids": ["b1"]})["total"] == 1
    with pytest.raises(InvalidInput, match="no node with id 'D1:1'"):
        call(memory, "list_edges", {"namespace": "bob", "node_ids": ["D1:1"]})
    assert len(call(memory, "list_edges", {"limit": 1000})["edges"]) == len(alice_edges) + 1
    # unscoped, the store holds both
    assert {"D1:1", "b1"} <= {n["id"] for n in call(memory, "query_graph", {"limit": 100})["nodes"]}
    # one namespace cannot take over, link to or see another's node
    with pytest.raises(InvalidInput, match="another namespace"):
        call(memory, "store_node", {"namespace": "bob", "id": "D1:1", "content": "mine now"})
    with pytest.raises(InvalidInput, match="no node with id 'D1:1'"):
        call(memory, "store_edge", {"namespace": "bob", "source_id": "b1", "target_id": "D1:1", "edge_type": "related"})
    with pytest.raises(InvalidInput, match="not the namespace"):
        call(memory, "store_node", {"namespace": "bob", "content": "x", "metadata": {"namespace": "alice"}})
    assert call(memory, "query_graph", {"node_ids": ["D1:1"]})["nodes"][0]["content"].startswith("Caroline: I went")
    # the same content in two namespaces is two nodes
    one = call(memory, "store_node", {"namespace": "alice", "content": "likes tea"})
    two = call(memory, "store_node", {"namespace": "bob", "content": "likes tea"})
    assert one["id"] != two["id"]


def test_the_words_of_a_conversation():
    assert dates_in("We met two weeks ago, then last Monday and tomorrow.", SAID) == {
        "two weeks ago": "24 April 2023", "last monday": "1 May 2023", "tomorrow": "9 May 2023"
    }  # fmt: skip
    assert dates_in("Next month, a few days ago, last week, 3 years ago.", SAID) == {
        "next month": "June 2023", "a few days ago": "5 May 2023", "last week": "the week of 1 May 2023",
        "3 years ago": "2020",
    }  # fmt: skip
    assert dates_in("In December, moved last May; since March; next May; the 3rd of June, July 4th.", SAID) == {
        "in december": "December 2022", "last may": "May 2022", "since march": "March 2023", "next may": "May 2024",
        "3rd of june": "3 June 2023", "july 4th": "4 July 2023",
    }  # fmt: skip
    # a year given is a full date, "may" the verb is no month, and a day the month has not is no day
    assert dates_in("In May 2022, on May 5, 2021; we may go. May I? 31 June", SAID) == {}
    assert names_in("Thanks Mel! The Pride parade in New York was great.", set()) == ["Mel", "Pride", "New York"]
    assert names_in("Painting helps me. Sam's dog too.", {"sam"}) == ["Sam"]
    # names in any Latin, Greek or Cyrillic capitals; a question's auxiliary is no part of a name;
    # a title's full stop ends no sentence
    assert names_in("We met Émile, Åsa, Łukasz, Ölaf and Ирина.", set()) == ["Émile", "Åsa", "Łukasz", "Ölaf", "Ирина"]
    assert names_in("Did Jon like it? Does Anna know? I'm Jo.", {"jo"}) == ["Jon", "Anna", "Jo"]
    assert names_in("I saw Dr. Smith, then Mr. Brown.", set()) == ["Dr Smith", "Mr Brown"]


def test_the_editors_api_reads_and_writes_one_namespace():
    from bendscope.memory import Memory
    from bendscope.memory.store.inmemory import InMemoryStore
    from bendscope.memory.web.editor_site import Admission, editor_app
    from tests.memory.web.test_editor_site import BEARER, PORT, SITE, TOKEN, _ask

    memory = Memory(InMemoryStore())
    memory.within("alice").store_node({"id": "a1", "content": "Alice's fact"})
    memory.within("bob").store_node({"id": "b1", "content": "Bob's fact"})

    async def mcp(scope: dict, receive: object, send: object) -> None:  # (not reached here)
        raise AssertionError

    app = editor_app(mcp, memory, Admission(TOKEN, PORT), SITE)

    def shown(path: str, query: str = "", body: bytes = b"", method: str = "GET") -> list[str]:
        status, _, answer = _ask(app, path, query=query, body=body, method=method, **BEARER)
        assert status == 200, answer
        return [n["id"] for n in json.loads(answer)["document"]["planes"][0]["nodes"]]

    assert shown("/api/graph", "namespace=alice") == ["a1"]
    assert shown("/api/graph", "namespace=bob&query=fact") == ["b1"]
    assert sorted(shown("/api/graph")) == ["a1", "b1"]
    assert shown("/api/view", "namespace=bob", b'{"query": "fact", "node_ids": ["a1", "b1"]}', "POST") == ["b1"]
    ops = {"ops": [{"op": "put_node", "id": "b2", "text": "Bob's new fact", "was": None}]}
    status, _, _ = _ask(app, "/api/write", query="namespace=bob", body=json.dumps(ops).encode(), method="POST",
                        **BEARER)  # fmt: skip
    assert status == 200 and memory.store.get_node("b2").metadata == {"namespace": "bob"}
    history = _ask(app, "/api/history", query="namespace=bob&id=a1", **BEARER)
    assert history[0] == 404  # (alice's node is not bob's to read)
    assert _ask(app, "/api/graph", query="namespace=%20x", **BEARER)[0] == 400


def test_the_cli_exports_retrieves_and_analyses_one_namespace(tmp_path):
    from bendscope.memory import Memory
    from bendscope.memory.store.sqlite import SQLiteStore
    from tests.memory.test_cli import run

    path = tmp_path / "m.sqlite3"
    with SQLiteStore(path) as store:
        memory = Memory(store)
        memory.within("alice").store_node({"id": "a1", "content": "Alice's fact"})
        memory.within("bob").store_node({"id": "b1", "content": "Bob's fact"})
    exported = json.loads(run(["export", "--namespace", "bob"], path).stdout)
    assert [n["id"] for n in exported["planes"][0]["nodes"]] == ["b1"]
    found = json.loads(run(["retrieve", "fact", "--namespace", "alice"], path).stdout)
    assert [r["id"] for r in found["results"]] == ["a1"]
    assert json.loads(run(["analyze", "--namespace", "alice"], path).stdout)["dag_nodes"] == ["a1"]
    refused = run(["export", "--dump", "--namespace", "bob"], path)
    assert refused.returncode == 2 and "leave out --namespace" in refused.stderr


NAME_TEXT = st.text(alphabet=string.ascii_letters + string.digits + " .,!?-'", min_size=1, max_size=30)


@given(NAME_TEXT)
def test_a_key_names_one_node_however_it_is_spelt(name):
    assume(normal_name(name))
    for spelt in (name.upper(), name.lower(), f"  {name}  ", f"{name}!", f"{name}'s", name.replace(" ", "  ")):
        assert key_id(None, spelt) == key_id(None, name), spelt
        assert key_id("a", spelt) != key_id("b", spelt)
    assert normal_name(normal_name(name)) == normal_name(name)


@given(st.dates(min_value=datetime.date(1900, 1, 8), max_value=datetime.date(2200, 1, 1)), st.sampled_from(WEEKDAYS))
def test_relative_days_resolve_against_the_day_said(day, weekday):
    said = f"{day.isoformat()}T12:00:00.000Z"
    found = dates_in(f"yesterday, last {weekday} and tomorrow", said)
    back = [datetime.datetime.strptime(found[k], "%d %B %Y").date() for k in ("yesterday", f"last {weekday}")]
    assert back[0] == day - datetime.timedelta(days=1)
    assert 1 <= (day - back[1]).days <= 7 and WEEKDAYS[back[1].weekday()] == weekday
    assert datetime.datetime.strptime(found["tomorrow"], "%d %B %Y").date() == day + datetime.timedelta(days=1)


@given(st.dates(min_value=datetime.date(1900, 1, 8), max_value=datetime.date(2200, 1, 1)), st.sampled_from(MONTHS))
def test_a_month_without_a_year_is_the_nearest_one(day, month):
    said = f"{day.isoformat()}T12:00:00.000Z"
    name = month.capitalize()
    found = dates_in(f"in {name}, last {name}, next {name}, {name} 1st", said)
    meant = datetime.datetime.strptime(found[f"in {month}"], "%B %Y").date()
    months_away = (meant.year - day.year) * 12 + meant.month - day.month
    assert -6 <= months_away < 6
    first = datetime.datetime.strptime(found[f"{month} 1st"], "%d %B %Y").date()  # (the nearest by days)
    assert first.month == meant.month and abs((first - day).days) <= 183
    last = datetime.datetime.strptime(found[f"last {month}"], "%B %Y").date()
    after = datetime.datetime.strptime(found[f"next {month}"], "%B %Y").date()
    assert last < day.replace(day=1) <= after and last.year + 1 >= day.year >= after.year - 1
    assert (after.year - last.year) in (1, 2) and last.month == after.month == MONTHS.index(month) + 1


def test_consolidation_never_merges_across_namespaces(store):
    memory = memory_on(store)
    for namespace in ("alice", "bob"):
        call(memory, "store_node", {"namespace": namespace, "content": "Likes green tea", "id": f"{namespace}-tea"})
    call(memory, "store_node", {"namespace": "alice", "content": "likes green tea!", "id": "alice-tea-2"})
    answer = call(memory, "consolidate", {})
    assert answer["merged"]["items"] == [{"into": "alice-tea", "merged": ["alice-tea-2"], "by": "content"}]
    assert sorted(store.node_ids()) == ["alice-tea", "bob-tea"]


def test_a_conversation_keys_and_namespaces_over_stdio(location):
    async def work(client: Client) -> None:
        stored = await ok(client, "store_many", {"namespace": "alice", "turns": TURNS})
        assert [t["id"] for t in stored["turns"]] == [t["id"] for t in TURNS]
        keyed = await ok(client, "store_node", {"namespace": "alice", "key": "sam", "content": "Sam, a friend"})
        assert keyed["merged_into"] == stored["entities"]["Sam"]
        linked = await ok(client, "store_edge", {"namespace": "alice", "source_key": "SAM", "target_key": "Caroline",
                                                 "edge_type": "related"})  # fmt: skip
        assert linked["status"] == "created"
        asked = "Who did Caroline meet at the Pride parade?"
        found = await ok(client, "retrieve_context", {"namespace": "alice", "query": asked})
        assert found["results"][0]["id"] == "D2:1"
        other = await ok(client, "retrieve_context", {"namespace": "bob", "query": asked})
        assert other["results"] == []

    over_stdio(location, work)


def test_a_speakers_short_name_is_that_speaker(store):
    """ "Mel" said to Melanie is Melanie: a one-word name of three letters or more that begins
    exactly one speaker's name links the turn to that speaker's entity (no second entity)."""
    memory = memory_on(store)
    turns = [
        {"id": "A:1", "speaker": "Caroline", "text": "Thanks Mel! We saw Jo at the parade.", "time": SAID,
         "session": 1},
        {"id": "A:2", "speaker": "Melanie", "text": "Sure, Caro. Jo and Joanna both came.", "time": SAID,
         "session": 1},
    ]  # fmt: skip
    answer = call(memory, "store_many", {"turns": turns})
    assert set(answer["entities"]) == {"Caroline", "Melanie", "Jo", "Joanna"}
    nodes = {n["id"]: n for n in call(memory, "query_graph", {"limit": 100})["nodes"]}
    assert nodes["A:1"]["metadata"]["names"] == ["melanie", "jo"]  # (Jo: two letters, never taken short)
    assert nodes["A:2"]["metadata"]["names"] == ["caroline", "jo", "joanna"]
