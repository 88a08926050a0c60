def judge_pair(judge, task, first, second):
    """First's score against second (1.0, 0.5 or 0.0): two judge calls, the order swapped, averaged."""
    def winner(one, two):
        reply = judge([{"role": "system", "content": JUDGE_SYSTEM},
                       {"role": "user", "content": judge_prompt(task.question, one, two)}], [])
        text = reply.get("final") if isinstance(reply, dict) else None
        found = re.search(r"winner:\s*([12])\b", text or "", re.IGNORECASE)
        return int(found.group(1)) if found else 0  # Mistake: a reply without a winner passes silently

    wins = (winner(first, second) == 1) + (winner(second, first) == 2)
    return wins / 2
