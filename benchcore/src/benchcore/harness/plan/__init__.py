"""``benchcore plan``: skills and cases in, a run folder and its launch scripts out (``run.plan_runs``).

Stages, in order: ``decide`` (shape, cases, models, budget per skill), ``worlds`` (the temp worlds,
skill copies, ``run.json`` and ``plan.json``), ``estimate`` (tokens and the ceiling), ``launch`` (what the
budget lets run, the fan-out scripts). Before them ``resume`` continues the newest unfinished run of the
same skills when it still fits the tree (``open_runs`` lists the runs whose worlds still exist), and
``sandboxing`` smoke-runs the OS sandbox the arms' commands will run in (or takes the user's opt-out). After
them ``blind`` finds what shows a skill under test to the baseline (the session's git status).
"""
