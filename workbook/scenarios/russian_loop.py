"""The Russian twins of the scenarios chapter 02's demo cells run through the learner's loop
(docs/TRANSLATING.md, "Content in the language"; `scenarios.get(name, lang="ru")` finds them).

Each plays its English twin's steps with the same tools and arguments and recovers on the same
words of an error (the tool names, "YYYY-MM"): the loop's error messages are English code, and
only what the model says is Russian. Where the task has words, so do the arguments
(`month="сентябрь 2026"`, `query="сроки доставки, попытка 1"`).

- `asks_other_customer_ru`: txn_sum with customer_id='C-002', then without it after the refusal;
- `vague_vs_specific_error_ru`: month="сентябрь 2026", fixed only when the error says YYYY-MM;
- `unknown_tool_then_recover_ru`: lookup_order, then get_order only when the error lists it;
- `wants_card_block_ru`: card_block(confirmed=True), then card_block(), then asks the customer;
- `never_finishes_ru`: search_kb with a new query forever (only a step limit stops it).
"""

from __future__ import annotations

from workbook.engine.replies import Reply, call, final
from workbook.engine.turns import Conversation
from workbook.scenarios.base import Scenario
from workbook.scenarios.permissions import card_block_policy, other_customer_policy
from workbook.scenarios.recovery import unknown_tool_policy, vague_error_policy
from workbook.scenarios.russian import TAXI_ANSWER_RU, in_russian, order_ru, taxi_answer_ru

ORDER_QUESTION_RU = "Где мой заказ A-1001?"
ORDER_ANSWER_RU = "Заказ A-1001 (настольная лампа «Свет») отправлен."
CONFIRM_ANSWER_RU = "Чтобы заблокировать карту, мне нужно ваше подтверждение: ответьте «да, заблокируйте карту»."


def one_order_ru(conv: Conversation) -> Reply:
    """The order's status read from the last get_order result."""
    got = conv.read(status=str)
    if got is None:
        return final("Не получилось посмотреть ваш заказ.")
    text = order_ru(got.get("order_id", "A-1001"), got)
    return final(f"{text[0].upper()}{text[1:]}.")


def asks_other_customer_ru() -> Scenario:
    return in_russian("asks_other_customer_ru", other_customer_policy(taxi_answer_ru), "txn_sum", TAXI_ANSWER_RU,
                      "Сколько клиент C-002 потратил на такси в сентябре?",
                      "Передаёт в аргументах customer_id='C-002' (чужого клиента); после ошибки "
                      "повторяет вызов без него.")


def vague_vs_specific_error_ru() -> Scenario:
    policy = vague_error_policy("сентябрь 2026", "Извините, что-то пошло не так, и я не смог узнать ваши расходы.",
                                taxi_answer_ru)
    return in_russian("vague_vs_specific_error_ru", policy, "txn_sum", TAXI_ANSWER_RU,
                      "Сколько я потратил на такси в сентябре 2026?",
                      "Присылает месяц в неверном формате; повторяет, только если ошибка называет "
                      "ожидаемый формат (YYYY-MM).")


def unknown_tool_then_recover_ru() -> Scenario:
    policy = unknown_tool_policy("Сейчас я не могу посмотреть заказы.", one_order_ru)
    return in_russian("unknown_tool_then_recover_ru", policy, "get_order", ORDER_ANSWER_RU, ORDER_QUESTION_RU,
                      "Вызывает инструмент, которого нет; исправляется, только если ошибка "
                      "перечисляет доступные инструменты.")


def wants_card_block_ru() -> Scenario:
    policy = card_block_policy(CONFIRM_ANSWER_RU, "Ваша карта заблокирована.")
    return in_russian("wants_card_block_ru", policy, "card_block", CONFIRM_ANSWER_RU,
                      "У меня украли карту, заблокируйте её!",
                      "Просит заблокировать карту и сам передаёт confirmed=true; подтвердить может "
                      "только клиент.")


def never_finishes_ru() -> Scenario:
    def policy(conv):
        return call("search_kb", query=f"сроки доставки, попытка {conv.steps + 1}")

    return in_russian("never_finishes_ru", policy, "search_kb", None, "Сколько идёт доставка?",
                      "Ищет снова и снова с новыми запросами: остановить его может только лимит шагов.")
