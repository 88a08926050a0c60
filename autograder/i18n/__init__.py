"""Translated chapters (docs/TRANSLATING.md): texts, their release, messages, feedback pages.

Everything a language needs, from the blocks to translate to the learner's feedback page:

    i18n           translated chapters (i18n/<lang>/): the blocks, their hashes, what is missing or stale
    i18n_release   `release` of the translated editions, chapters/<lang>/, code cells the English ones
    i18n_messages  the message templates of test cells, test helpers and tools, read by ast
    i18n_status    `i18n status|skeleton|messages`: what a language lacks, skeletons to translate
    i18n_feedback  the feedback page of a translated notebook in its language
"""
