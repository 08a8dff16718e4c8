# A small stateful bot on the original's unmodified Python client: it answers each direct message
# with how many it has answered so far, keeping the count in its bot storage (get_storage and
# update_storage), so a restarted bot carries on counting. Usage: counter_bot.py SITE EMAIL KEY N
import json
import sys

import zulip

site, email, api_key, wanted = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
client = zulip.Client(email=email, api_key=api_key, site=site)


def stored_count():
    r = client.get_storage()
    assert r["result"] == "success", r
    return int(json.loads(r["storage"].get("count", "0")))


queue = client.register(event_types=["message"])
assert queue["result"] == "success", queue
print("ready", flush=True)
last, handled = queue["last_event_id"], 0
while handled < wanted:
    r = client.get_events(queue_id=queue["queue_id"], last_event_id=last)
    assert r["result"] == "success", r
    for event in r["events"]:
        last = max(last, event["id"])
        if event["type"] != "message" or event["message"]["sender_email"] == email:
            continue
        count = stored_count() + 1
        put = client.update_storage({"storage": {"count": json.dumps(count)}})
        assert put["result"] == "success", put
        message = event["message"]
        sent = client.send_message({"type": "private", "to": [message["sender_email"]], "content": "count: %d" % count})
        assert sent["result"] == "success", sent
        handled += 1
print("done", stored_count(), flush=True)
