"""The process around the features: settings, the database and its migrations, logs, serving, errors."""
