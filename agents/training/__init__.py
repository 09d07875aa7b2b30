"""Self-play training and tournaments (the code behind ``train.py`` and ``evaluate.py``).

``config``       - YAML training configs, validated key by key;
``pool``         - the opponent pool and its sampling rule;
``selfplay_env`` - the single-agent self-play env (opponents play inside ``step()``);
``vec_env``      - vector envs (worker processes or in-process) and the choice between them;
``checkpoints``  - the run directory, checkpoint files, saving a model with its metadata;
``callback``     - the SB3 callback: snapshots, checkpoints, periodic evaluation, logging;
``trainer``      - ``train(config)``: a new or resumed MaskablePPO run;
``tournament``   - pairings, win rates with Wilson intervals, OpenSkill ratings, table/CSV/JSON/PNG.

Submodules are imported on use: ``vec_env``, ``callback`` and ``trainer`` pull in torch and stable-baselines3.
"""
