from django.apps import apps


def registered(app_label, name):
    return name.lower() in apps.all_models[app_label]


def load_model(app_label, name):
    return apps.get_model(app_label, name)
