"""Self-play training and tournaments (the code behind ``train.py`` and ``evaluate.py``).

``config``     - YAML training configs, validated key by key;
``selfplay``   - the single-agent self-play adapter, the opponent pool and the trainer;
``tournament`` - pairings, win rates with Wilson intervals, OpenSkill ratings, table/CSV/JSON/PNG.

Submodules are imported on use: ``selfplay`` pulls in torch and stable-baselines3.
"""
