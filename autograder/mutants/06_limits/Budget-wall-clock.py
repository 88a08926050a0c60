class Budget:
    """What one run may use: model calls, tokens, and seconds on `clock`."""

    def __init__(self, max_steps=8, max_tokens=60_000, timeout_s=120.0, clock=time.monotonic):
        self.max_steps, self.max_tokens, self.timeout_s = max_steps, max_tokens, timeout_s
        self.clock = clock
        self.steps = 0
        self.tokens = 0
        self.started = time.time()  # Mistake: the real clock, not the one passed in.

    def before_call(self):
        """Before a model call: None (and count the call), or the stop status."""
        if self.steps >= self.max_steps:
            return "STOPPED: step limit"
        if time.time() - self.started >= self.timeout_s:
            return "STOPPED: timeout"
        self.steps += 1
        return None

    def after_call(self, usage):
        """After a model call: add its tokens; "STOPPED: token budget" when over, else None."""
        self.tokens += usage.total_tokens
        return "STOPPED: token budget" if self.tokens > self.max_tokens else None
