"""Packaging of nova_lite."""

import setuptools

CONSOLE_SCRIPTS = [
    'nova-lite-api = nova_lite.cmd.api:main',
    'nova-lite-placement = nova_lite.cmd.placement:main',
    'nova-lite-scheduler = nova_lite.cmd.scheduler:main',
    'nova-lite-conductor = nova_lite.cmd.conductor:main',
    'nova-lite-compute = nova_lite.cmd.compute:main',
    'nova-lite-manage = nova_lite.cmd.manage:main',
]


def _requirements(path):
    with open(path) as f:
        return [line.strip() for line in f
                if line.strip() and not line.startswith('#')]


setuptools.setup(
    name='nova_lite',
    version='0.1.0',
    description='A compute cloud controller modelled on OpenStack Nova '
                'and Placement',
    long_description=open('README.md').read(),
    long_description_content_type='text/markdown',
    python_requires='>=3.11',
    packages=setuptools.find_packages(exclude=['tests', 'tests.*']),
    include_package_data=True,
    package_data={'nova_lite': ['db/*/alembic.ini', 'db/*/migrations/*.py',
                                'db/*/migrations/versions/*.py',
                                'placement/db/alembic.ini',
                                'placement/db/migrations/*.py',
                                'placement/db/migrations/versions/*.py',
                                'scenario/scenarios/*.yaml']},
    install_requires=_requirements('requirements.txt'),
    entry_points={
        'console_scripts': CONSOLE_SCRIPTS,
        'oslo.config.opts': ['nova_lite = nova_lite.conf.opts:list_opts'],
        'oslo.policy.policies': [
            'nova_lite.api = nova_lite.api.deploy:policy_rules',
            'nova_lite.placement = nova_lite.placement.policies:list_rules',
        ],
    },
)
