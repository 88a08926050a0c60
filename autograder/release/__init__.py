"""Building the course: solutions/NN_name/NN_name.py -> solutions/*.ipynb -> chapters/.

`release` and what it puts in a chapter (docs/CHAPTERS.md):

    release   `release`: solution notebooks from their .py sources, then chapters/
    includes  `#@include NN_chapter name` in a chapter's source: given code from the chapter that writes it
    reading   each released chapter's last cell: its reading list from docs/READING.md
"""
