def judge_pair(judge, task, first, second):
    """First's score against second (1.0, 0.5 or 0.0): two judge calls, the order swapped, averaged."""
    def winner(one, two):
        reply = judge([{"role": "system", "content": JUDGE_SYSTEM},
                       {"role": "user", "content": judge_prompt(task.question, one, two)}], [])
        text = reply.get("final") if isinstance(reply, dict) else None
        found = re.search(r"winner:\s*([12])\b", text or "", re.IGNORECASE)
        if found is None:
            raise ValueError(f"the judge's reply had no winner ('Winner: 1' or 'Winner: 2'): {text!r:.100}")
        return int(found.group(1))

    # Mistake: in the swapped call first is Answer 2, but a "1" is still counted for it
    wins = (winner(first, second) == 1) + (winner(second, first) == 1)
    return wins / 2
