class Plan(BaseModel):
    """A plan: 1 to 7 steps, each a short non-blank instruction."""

    steps: list[str] = Field(min_length=1)  # Mistake: no upper limit on the number of steps

    @field_validator("steps")
    @classmethod
    def steps_not_blank(cls, steps):
        if any(not step.strip() for step in steps):
            raise ValueError("a step is blank: every step must say what to do")
        return [step.strip() for step in steps]


def read_plan(text):
    """The planner's reply (JSON, maybe in a ``` fence) as a validated Plan; ValueError otherwise."""
    if not isinstance(text, str):
        raise ValueError(f"a plan must be JSON text, got {type(text).__name__}")
    lines = text.strip().splitlines()
    if len(lines) >= 2 and lines[0].startswith("```") and lines[-1].strip() == "```":
        lines = lines[1:-1]
    return Plan.model_validate_json("\n".join(lines))
